package dev.lockstep.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The network between some clients and the test broker, which a test can cut. A TCP proxy on
 * 127.0.0.1 forwards to a listener of its own on the broker, and that listener advertises the
 * proxy's address: a client bootstrapped at {@link #bootstrapServers()} learns from the metadata
 * to connect to the proxy again, never to the broker directly, so it stays behind the proxy. The
 * worker and every other client keep the broker's direct address.
 *
 * <ul>
 *   <li>{@link #cut()}: every connection is dropped, and new ones are closed as they come (a
 *       crashed link, a firewall that rejects);
 *   <li>{@link #blackhole()}: connections are accepted and held, and nothing passes either way
 *       (a partition: requests and replies wait, then time out);
 *   <li>{@link #heal()}: bytes pass again, those held first; connections cut stay closed.
 * </ul>
 *
 * <p>A child process (a Python or Node suite, a {@code lockstep exec}) gets the proxied address in
 * {@value #BOOTSTRAP_ENV} and controls the link by an HTTP POST to {@code /cut}, {@code /blackhole}
 * or {@code /heal} under the base URL in {@value #CONTROL_ENV} (answered 204): see
 * {@link #environment()}.
 */
public final class BrokerLink implements AutoCloseable {

    /** The base URL of the control endpoint, e.g. {@code http://127.0.0.1:41234}. */
    public static final String CONTROL_ENV = "LOCKSTEP_BROKER_LINK";
    /** The proxied bootstrap address, {@code 127.0.0.1:PORT}. */
    public static final String BOOTSTRAP_ENV = "LOCKSTEP_PROXIED_BOOTSTRAP";

    /** What the link lets through. */
    public enum State { OPEN, CUT, BLACKHOLE }

    private final ServerSocket server;
    private final HttpServer control;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile InetSocketAddress broker;
    private State state = State.OPEN; // guarded by this

    private BrokerLink(ServerSocket server, HttpServer control) {
        this.server = server;
        this.control = control;
    }

    /** Binds the proxy's port, to be advertised by the broker's listener; nothing is forwarded before {@link #start}. */
    static BrokerLink bind() {
        try {
            InetAddress loopback = InetAddress.getLoopbackAddress();
            BrokerLink link = new BrokerLink(new ServerSocket(0, 50, loopback),
                    HttpServer.create(new InetSocketAddress(loopback, 0), 0));
            link.control.createContext("/", link::control);
            return link;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind the broker link's ports on 127.0.0.1", e);
        }
    }

    /** The port the broker's listener must advertise. */
    int port() {
        return server.getLocalPort();
    }

    /** Forwards to the broker's listener at {@code host:listenerPort} and serves the control endpoint. */
    void start(String host, int listenerPort) {
        broker = new InetSocketAddress(host, listenerPort);
        Thread accepting = new Thread(this::accept, "broker-link-accept");
        accepting.setDaemon(true);
        accepting.start();
        control.start();
    }

    /** The bootstrap address behind the link. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port();
    }

    /** The control endpoint's base URL; POST {@code /cut}, {@code /blackhole} or {@code /heal} under it. */
    public URI control() {
        return URI.create("http://127.0.0.1:" + control.getAddress().getPort());
    }

    /** {@value #BOOTSTRAP_ENV} and {@value #CONTROL_ENV}, for a child process. */
    public Map<String, String> environment() {
        return Map.of(BOOTSTRAP_ENV, bootstrapServers(), CONTROL_ENV, control().toString());
    }

    public synchronized State state() {
        return state;
    }

    /** Drops every connection; new ones are closed as they come, until {@link #heal()}. */
    public synchronized void cut() {
        state = State.CUT;
        notifyAll();
        open.forEach(BrokerLink::closeQuietly);
        open.clear();
    }

    /** Holds every connection, new ones too: nothing passes until {@link #heal()} (or a {@link #cut()}). */
    public synchronized void blackhole() {
        state = State.BLACKHOLE;
    }

    /** Lets bytes pass again. */
    public synchronized void heal() {
        state = State.OPEN;
        notifyAll();
    }

    private void control(HttpExchange exchange) throws IOException {
        try (exchange) {
            Runnable action = switch (exchange.getRequestURI().getPath()) {
                case "/cut" -> this::cut;
                case "/blackhole" -> this::blackhole;
                case "/heal" -> this::heal;
                default -> null;
            };
            if (action == null) {
                exchange.sendResponseHeaders(404, -1);
            } else if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
            } else {
                action.run();
                exchange.sendResponseHeaders(204, -1);
            }
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            carry(client);
        }
    }

    private void carry(Socket client) {
        if (state() == State.CUT) {
            closeQuietly(client);
            return;
        }
        Socket upstream = new Socket();
        try {
            upstream.connect(broker, 5_000);
        } catch (IOException e) {
            closeQuietly(client);
            closeQuietly(upstream);
            return;
        }
        synchronized (this) {
            if (state == State.CUT) { // cut while connecting
                closeQuietly(client);
                closeQuietly(upstream);
                return;
            }
            open.add(client);
            open.add(upstream);
        }
        pump(client, upstream);
        pump(upstream, client);
    }

    /** Copies one direction while the link is open; held while it is a black hole, its end too. */
    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (!passing()) {
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
                passing();
            } catch (IOException e) {
                // one side went away, or the link was cut
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "broker-link-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits while the link is a black hole; whether bytes may pass (false once cut). */
    private synchronized boolean passing() throws InterruptedException {
        while (state == State.BLACKHOLE) {
            wait();
        }
        return state == State.OPEN;
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
        control.stop(0);
        server.close();
        cut();
    }
}
