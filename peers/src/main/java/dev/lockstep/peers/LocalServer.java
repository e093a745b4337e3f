package dev.lockstep.peers;

import dev.lockstep.bench.peers.LockPeer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A peer's server run from the binaries installed on this machine, for one benchmark run: its
 * output goes to a log in its directory, it answers on a port of 127.0.0.1, and it is stopped
 * (and its process waited for) when closed, or when this JVM exits.
 */
final class LocalServer implements LockPeer.Server {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final String url;
    private final Thread stopOnExit;

    private LocalServer(Process process, String url) {
        this.process = process;
        this.url = url;
        this.stopOnExit = new Thread(process::destroyForcibly, "stop-" + url);
        Runtime.getRuntime().addShutdownHook(stopOnExit);
    }

    /**
     * @param binary the program, which must exist (the package named says where it comes from)
     * @param port where it answers once started
     */
    static LocalServer start(Path binary, String debianPackage, List<String> command, Path dir, int port, String url) {
        if (!Files.isExecutable(binary)) {
            throw new LockPeer.Unavailable(binary + " is not installed (Debian: apt-get install " + debianPackage + ")");
        }
        try {
            Files.createDirectories(dir);
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("server.log").toFile()).start();
            LocalServer server = new LocalServer(process, url);
            server.awaitPort(port, dir);
            return server;
        } catch (IOException e) {
            throw new LockPeer.Unavailable("cannot start " + binary + ": " + e.getMessage(), e);
        }
    }

    private void awaitPort(int port, Path dir) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new LockPeer.Unavailable("it exited with " + process.exitValue() + "; see " + dir.resolve("server.log"));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                pause();
            }
        }
        close();
        throw new LockPeer.Unavailable("it did not answer on port " + port + " within " + START_TIMEOUT.toSeconds() + " s");
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new LockPeer.Unavailable("no free port on 127.0.0.1", e);
        }
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public List<Long> pids() {
        return List.of(process.pid());
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs anyway
        }
    }
}
