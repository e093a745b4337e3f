package dev.lockstep.cli;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where an option's value comes from when its flag is not given: the environment variable
 * {@code LOCKSTEP_<OPTION>} (e.g. {@code --db-url} → {@code LOCKSTEP_DB_URL}), then the
 * properties file named by {@code LOCKSTEP_CONFIG} (key {@code db-url}), then the built-in
 * default. A flag always wins. Commands that connect to Kafka or read the database, given none of
 * these, use a running {@code lockstep dev} ({@link DevConnection}) before the built-in default.
 */
final class ConfigDefaults implements IDefaultValueProvider {

    static final String CONFIG_ENV = "LOCKSTEP_CONFIG";

    private final Map<String, String> env;
    private final Properties file;
    /** Looked up once, when an option first asks. */
    private Optional<DevConnection> runningDev;

    ConfigDefaults(Map<String, String> env) {
        this.env = env;
        this.file = load(env.get(CONFIG_ENV));
    }

    /**
     * The running {@code lockstep dev} whose data directory the environment ({@code LOCKSTEP_DATA_DIR})
     * or the properties file ({@code data-dir}) names, by default {@code ~/.lockstep/dev}.
     */
    Optional<DevConnection> runningDev() {
        if (runningDev == null) {
            String dir = env.getOrDefault(envName("--data-dir"), file.getProperty("data-dir"));
            runningDev = DevConnection.running(DevConnection.fileIn(dir != null ? Path.of(dir) : DevData.defaultDir()));
        }
        return runningDev;
    }

    /** The running dev, for a command whose default values come from a {@code ConfigDefaults}. */
    static Optional<DevConnection> runningDev(CommandSpec command) {
        return command.defaultValueProvider() instanceof ConfigDefaults defaults ? defaults.runningDev() : Optional.empty();
    }

    static String envName(String longOption) {
        return "LOCKSTEP_" + longOption.replaceFirst("^--", "").replace('-', '_').toUpperCase(Locale.ROOT);
    }

    @Override
    public String defaultValue(ArgSpec argSpec) {
        if (!(argSpec instanceof OptionSpec option)) {
            return null;
        }
        String longName = option.longestName();
        String fromEnv = env.get(envName(longName));
        if (fromEnv != null) {
            return fromEnv;
        }
        String fromFile = file.getProperty(longName.replaceFirst("^--", ""));
        if (fromFile == null && KafkaOptions.isBootstrapServers(option)) {
            return runningDev().map(DevConnection::bootstrapServers).orElse(null);
        }
        return fromFile;
    }

    private static Properties load(String path) {
        Properties props = new Properties();
        if (path == null || path.isBlank()) {
            return props;
        }
        try (Reader reader = Files.newBufferedReader(Path.of(path), StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + CONFIG_ENV + "=" + path, e);
        }
        return props;
    }
}
