package dev.lockstep.cli;

import dev.lockstep.client.LockTimeoutException;
import dev.lockstep.worker.WorkerStartException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code lockstep} command line: the main class of {@code lockstep.jar}. */
@Command(name = "lockstep", mixinStandardHelpOptions = true, versionProvider = BuildVersion.class,
        description = "Distributed locks arbitrated by a Kafka-driven worker over PostgreSQL.",
        footer = {"", "Every option can also come from the environment (--db-url -> LOCKSTEP_DB_URL) or from the",
                "properties file named by LOCKSTEP_CONFIG (key db-url). A flag wins over both."})
public final class LockstepCli {

    /** Every subcommand, in the order help lists them. */
    static final List<Class<?>> SUBCOMMANDS = List.of(WorkerCommand.class, DevCommand.class, TopicsCommand.class,
            LockCommands.Acquire.class, LockCommands.Renew.class, LockCommands.Release.class, LockCommands.Status.class,
            ExecCommand.class, ElectCommand.class, LeaderCommand.class, ReplayCommand.class, AuditCommand.class, BenchCommand.class, GatewayCommand.class,
            LocksCommand.class, DlqCommand.class, AutoComplete.GenerateCompletion.class);

    @Option(names = "--verbose", scope = ScopeType.INHERIT,
            description = "Log at DEBUG (unless LOCKSTEP_LOG_LEVEL says otherwise) and print errors with their stack traces.")
    boolean verbose;

    private LockstepCli() {
    }

    public static void main(String[] args) {
        CommandLine cli;
        try {
            cli = commandLineFor(args, System.getenv());
        } catch (UncheckedIOException e) {
            System.err.println("lockstep: " + e.getMessage() + ": " + e.getCause().getMessage());
            System.exit(ExitCodes.USAGE);
            return;
        }
        System.exit(cli.execute(args));
    }

    /** The command line as {@link #main} runs it, with {@code env} for its defaults: for tests that run the CLI in-process. */
    public static CommandLine commandLine(Map<String, String> env) {
        return commandLine(SUBCOMMANDS, env);
    }

    /**
     * The command line for {@code args}: with only the subcommand they name, when they name one.
     * Building every subcommand's model by reflection took a quarter of a second of each one-shot
     * command; help, completion and mistakes get them all.
     */
    static CommandLine commandLineFor(String[] args, Map<String, String> env) {
        Optional<String> named = Arrays.stream(args).filter(arg -> !arg.startsWith("-")).findFirst();
        List<Class<?>> only = SUBCOMMANDS.stream().filter(type -> named.isPresent()
                && !type.equals(AutoComplete.GenerateCompletion.class)
                && type.getAnnotation(Command.class).name().equals(named.get())).toList();
        return commandLine(only.isEmpty() ? SUBCOMMANDS : only, env);
    }

    private static CommandLine commandLine(List<Class<?>> subcommands, Map<String, String> env) {
        CommandLine cli = new CommandLine(LockstepCli.class);
        for (Class<?> subcommand : subcommands) {
            cli.addSubcommand(new CommandLine(subcommand));
        }
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setDefaultValueProvider(new ConfigDefaults(env));
        cli.setParameterExceptionHandler((e, args) -> {
            PrintWriter err = e.getCommandLine().getErr();
            err.println("lockstep: " + e.getMessage() + " (see: " + e.getCommandLine().getCommandSpec().qualifiedName()
                    + " --help)");
            return ExitCodes.USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("lockstep: " + describe(e));
            if (Logging.verbose()) {
                e.printStackTrace(commandLine.getErr());
            }
            commandLine.getErr().flush();
            if (e instanceof LockTimeoutException) {
                return ExitCodes.TIMEOUT; // exec's acquire, cancelled since
            }
            return e instanceof WorkerStartException refusal ? ExitCodes.of(refusal.kind()) : ExitCodes.ERROR;
        });
        // The log levels hold for every command alike: set once the command line is read, before it runs.
        cli.setExecutionStrategy(parseResult -> {
            try {
                Logging.configure(env, verbose(parseResult));
            } catch (IllegalArgumentException e) {
                parseResult.commandSpec().commandLine().getErr().println("lockstep: " + e.getMessage());
                return ExitCodes.USAGE;
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        return cli;
    }

    /** Whether --verbose was given, to the command or to any subcommand it names. */
    private static boolean verbose(CommandLine.ParseResult parsed) {
        return parsed.hasMatchedOption("--verbose") || parsed.subcommands().stream().anyMatch(LockstepCli::verbose);
    }

    /** One line: the message of the exception and of its causes, without a stack trace. */
    private static String describe(Throwable e) {
        StringBuilder line = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            if (cause.getMessage() != null && !line.toString().contains(cause.getMessage())) {
                line.append(": ").append(cause.getMessage());
            }
        }
        return line.toString();
    }
}
