package dev.lockstep.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import dev.lockstep.embedded.KafkaNoise;
import java.util.List;
import org.slf4j.Logger;

/**
 * Logback's configuration, made in code (found by logback through {@code META-INF/services}): one
 * line per event on standard error, lockstep at {@code LOCKSTEP_LOG_LEVEL} (default INFO), the
 * libraries at WARN, Kafka's noise dropped ({@link KafkaNoise}). Parsing an XML file instead took
 * a tenth of a second of every command's start. A file named by {@code -Dlogback.configurationFile}
 * is used instead of this.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class LogSetup extends ContextAwareBase implements Configurator {

    /** The libraries held at WARN unless asked otherwise ({@link Logging}). */
    static final List<String> LIBRARIES = List.of("org.apache.kafka", "kafka", "state.change.logger",
            "org.apache.zookeeper", "com.zaxxer.hikari", "org.flywaydb", "io.zonky", "io.javalin", "org.eclipse.jetty",
            "org.apache.curator", "io.etcd", "io.grpc", "io.netty", "io.vertx", "redis.clients");

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        KafkaNoise noise = new KafkaNoise();
        noise.setContext(context);
        noise.start();
        context.addTurboFilter(noise);

        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n");
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();

        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        // Also for what runs lockstep's classes outside its command line (a test, an embedding service).
        root.setLevel(Level.toLevel(System.getenv(Logging.LEVEL_ENV), Level.INFO));
        root.addAppender(stderr);
        LIBRARIES.forEach(name -> context.getLogger(name).setLevel(Level.WARN));
        // LOCKSTEP_LOG_LEVEL and --verbose are applied once the command line is read (Logging.configure).
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
