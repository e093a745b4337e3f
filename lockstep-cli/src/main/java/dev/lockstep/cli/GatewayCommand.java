package dev.lockstep.cli;

import dev.lockstep.client.LockClient;
import dev.lockstep.http.LockGateway;
import dev.lockstep.http.OpsServer;
import dev.lockstep.metrics.ProcessMetrics;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "gateway", mixinStandardHelpOptions = true,
        description = {"Serve the HTTP lock API (POST/GET/DELETE /locks/{resource}, POST /locks/{resource}/renew) "
                + "as a Kafka client: every request is a command on the command topic, answered from its reply "
                + "(docs/http.md). Stops on SIGTERM."})
final class GatewayCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayCommand.class);

    @Mixin
    ClientOptions client;

    @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "8080",
            description = "Port of the lock API and /metrics. Default: ${DEFAULT-VALUE}.")
    int httpPort;

    @Option(names = "--http-host", paramLabel = "HOST", defaultValue = "0.0.0.0",
            description = "Address it listens on. Default: ${DEFAULT-VALUE}.")
    String httpHost;

    @Override
    public Integer call() throws InterruptedException {
        Logging.quietKafka();
        OpsServer.requireFree(httpHost, httpPort, "--http-port");
        KafkaReach.require(client.settings().kafka());
        CountDownLatch stop = new CountDownLatch(1);
        try (ProcessMetrics metrics = new ProcessMetrics();
                LockClient locks = LockClient.start(client.settings());
                OpsServer server = OpsServer.start(httpHost, httpPort, metrics.registry(), Optional.empty(),
                        Optional.of(new LockGateway(locks, client.settings().requestTimeout())))) {
            Signals.onTerminate(stop::countDown);
            LOG.info("lock API on http://{}:{}/locks/{{resource}} (commands to {}, replies from {} partition {})",
                    httpHost, server.port(), client.settings().topics().commands(), client.settings().topics().replies(),
                    locks.replyPartition());
            stop.await();
        }
        return ExitCodes.OK;
    }
}
