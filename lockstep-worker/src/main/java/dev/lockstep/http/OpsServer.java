package dev.lockstep.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.worker.WorkerHealth;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * lockstep's HTTP port: {@code GET /metrics} (Prometheus text format, from Micrometer's registry),
 * a worker's {@code GET /health/live} and {@code GET /health/ready} (200, or 503 with the reasons
 * as JSON), and the {@link LockGateway}'s lock API where one is given. Javalin on Jetty 12: a
 * well-kept server that starts in milliseconds and needs no container (docs/operations.md says why).
 *
 * <pre>{@code
 * try (OpsServer http = OpsServer.start("0.0.0.0", 9400, registry, Optional.of(worker.health()), Optional.empty())) {
 *     worker.run();
 * }
 * }</pre>
 */
public final class OpsServer implements AutoCloseable {

    /** The Prometheus text exposition format, version 0.0.4. */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Javalin app;

    private OpsServer(Javalin app) {
        this.app = app;
    }

    /**
     * @param port 0 for any free port ({@link #port()} says which)
     * @throws HttpStartException when the port cannot be bound
     */
    public static OpsServer start(String host, int port, PrometheusMeterRegistry registry,
            Optional<WorkerHealth> health, Optional<LockGateway> gateway) {
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.get("/metrics", ctx -> ctx.contentType(PROMETHEUS_TEXT).result(registry.scrape()));
            health.ifPresent(worker -> {
                config.routes.get("/health/live", ctx -> answer(ctx, worker::live));
                config.routes.get("/health/ready", ctx -> answer(ctx, worker::ready));
            });
            gateway.ifPresent(locks -> locks.addTo(config.routes));
        });
        try {
            return new OpsServer(app.start(host, port));
        } catch (RuntimeException e) {
            app.stop();
            throw new HttpStartException("cannot serve HTTP on " + host + ":" + port + ": " + rootMessage(e)
                    + " (choose another --http-port)", e);
        }
    }

    /**
     * Fails at once, in one line, when {@code host:port} cannot be bound: checked before anything
     * else starts, so a busy port is said first and costs nothing.
     *
     * @param flag the option that chooses the port, named in the message
     */
    public static void requireFree(String host, int port, String flag) {
        if (port == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new HttpStartException(host + ":" + port + " is in use or cannot be bound (" + e.getMessage()
                    + "); choose another " + flag, null);
        }
    }

    private static void answer(Context ctx, Supplier<WorkerHealth.Status> check) {
        WorkerHealth.Status status = check.get();
        ObjectNode body = JSON.createObjectNode();
        body.put("status", status.ok() ? "up" : "down");
        status.problems().forEach(body.putArray("problems")::add);
        if (!status.warnings().isEmpty()) {
            status.warnings().forEach(body.putArray("warnings")::add);
        }
        ctx.status(status.ok() ? 200 : 503).contentType("application/json").result(body.toString());
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }
}
