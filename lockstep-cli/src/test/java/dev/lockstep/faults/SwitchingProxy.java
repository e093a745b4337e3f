package dev.lockstep.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP forwarder on a local port that can be pointed at another server, dropping every
 * connection it carried: what a virtual IP, a DNS name or a connection pooler does when a
 * replica is promoted. Or it can stop forwarding on the connections it carries while keeping them
 * open, as a NAT or cloud load balancer that silently dropped them does (half-open connections):
 * new connections pass. The worker's database URL names this port.
 */
final class SwitchingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    /** One flag per connection carried: set, its bytes are read and dropped, both ways. */
    private final List<AtomicBoolean> carried = new CopyOnWriteArrayList<>();
    private volatile int target;

    private SwitchingProxy(ServerSocket server, int target) {
        this.server = server;
        this.target = target;
    }

    static SwitchingProxy to(int targetPort) {
        try {
            SwitchingProxy proxy = new SwitchingProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                    targetPort);
            Thread accepting = new Thread(proxy::accept, "proxy-accept");
            accepting.setDaemon(true);
            accepting.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** From now on to {@code targetPort}; the connections open until now are cut. */
    void switchTo(int targetPort) {
        target = targetPort;
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        open.clear();
    }

    /** The connections open until now stop forwarding, silently, and stay open; new ones pass. */
    void halfOpenAll() {
        carried.forEach(stalled -> stalled.set(true));
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream;
                try {
                    upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                } catch (IOException refused) {
                    closeQuietly(client);
                    continue;
                }
                open.add(client);
                open.add(upstream);
                AtomicBoolean stalled = new AtomicBoolean();
                carried.add(stalled);
                pump(client, upstream, stalled);
                pump(upstream, client, stalled);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to, AtomicBoolean stalled) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (!stalled.get()) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // one side went away
            } finally {
                closeQuietly(from);
                open.remove(from);
                if (!stalled.get()) {
                    closeQuietly(to);
                    open.remove(to);
                    carried.remove(stalled);
                }
                // Half-open: the far end is not told either; it stays open until the proxy closes.
            }
        }, "proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        switchTo(target);
    }
}
