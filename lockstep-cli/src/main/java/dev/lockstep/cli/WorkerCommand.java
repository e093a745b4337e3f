package dev.lockstep.cli;

import dev.lockstep.http.OpsServer;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "worker", mixinStandardHelpOptions = true,
        description = "Consume lock commands, apply them in PostgreSQL, publish the replies. Stops cleanly on SIGTERM.")
final class WorkerCommand implements Callable<Integer> {

    @Mixin
    KafkaOptions kafka;

    @Mixin
    WorkerOptions options;

    @Override
    public Integer call() {
        Optional<WorkerRunner.HttpEndpoint> http = options.http(Optional.empty(), "0.0.0.0");
        http.ifPresent(endpoint -> OpsServer.requireFree(endpoint.host(), endpoint.port(), "--http-port"));
        return WorkerRunner.run(options.worker(kafka.settings(), kafka.topics()), options.database(),
                http, Optional.empty(), WorkerRunner.Ready.SILENT);
    }
}
