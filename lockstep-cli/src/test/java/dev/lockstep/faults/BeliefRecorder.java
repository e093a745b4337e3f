package dev.lockstep.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.Share;
import dev.lockstep.history.Belief;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the clients of a belief run believed, and where they stand: the Java clients in this JVM
 * tell it directly; child processes tell it over TCP on 127.0.0.1, one line at a time (UTF-8):
 *
 * <ul>
 *   <li>{@code waiting CLIENT RESOURCE}: it asks for a lease and waits;
 *   <li>{@code holding CLIENT RESOURCE TOKEN}: it was handed a lease and acts as its holder;
 *   <li>{@code stale CLIENT RESOURCE TOKEN}: it was handed a lease its client already said had
 *       ended (granted while it was frozen, say), and did not act on it;
 *   <li>{@code belief JSON}: a whole belief of a Python or Node loop ({@code client, resource, owner,
 *       token, limit} (0: the whole resource), {@code from_ms, until_ms} (the wall clock),
 *       {@code end});
 *   <li>{@code start CLIENT RESOURCE OWNER TOKEN LIMIT FROM_MS}: an {@code exec} or {@code elect}
 *       job started under a lease; its belief ends when its connection closes, that is when the
 *       last process of the job is dead, however it died (the kernel closes a killed process's
 *       sockets, so a SIGKILLed job needs to write nothing);
 *   <li>{@code write CLIENT RESOURCE TOKEN}: a write to the {@link FencedStore}, answered {@code ok}
 *       or {@code refused HIGHEST}.
 * </ul>
 */
final class BeliefRecorder implements AutoCloseable {

    /** Where a client stands, for a test that picks when to fault it. */
    enum State { IDLE, WAITING, HOLDING }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ServerSocket server;
    private final Clock clock;
    private final FencedStore store;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final List<Belief> beliefs = new ArrayList<>(); // guarded by this
    private final Map<String, State> states = new HashMap<>(); // guarded by this
    private final Map<String, Instant> since = new HashMap<>(); // guarded by this
    private final Map<ClientKind, Integer> stale = new EnumMap<>(ClientKind.class); // guarded by this
    private final List<String> unreadable = new ArrayList<>(); // guarded by this

    private BeliefRecorder(ServerSocket server, Clock clock, FencedStore store) {
        this.server = server;
        this.clock = clock;
        this.store = store;
    }

    /** Binds a port on 127.0.0.1 and serves it. */
    static BeliefRecorder start(Clock clock, FencedStore store) {
        try {
            BeliefRecorder recorder = new BeliefRecorder(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                    clock, store);
            Thread accepting = new Thread(recorder::accept, "belief-recorder");
            accepting.setDaemon(true);
            accepting.start();
            return recorder;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind the belief recorder on 127.0.0.1", e);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    FencedStore store() {
        return store;
    }

    Instant now() {
        return clock.instant();
    }

    synchronized void believed(Belief belief) {
        beliefs.add(belief);
        state(belief.client(), State.IDLE);
    }

    synchronized void state(String client, State state) {
        if (states.put(client, state) != state) {
            since.put(client, clock.instant());
        }
    }

    synchronized State state(String client) {
        return states.getOrDefault(client, State.IDLE);
    }

    /** How long {@code client} has been in {@code state}; empty if it is not in it. */
    synchronized Optional<Duration> in(String client, State state) {
        return state(client) == state ? Optional.of(Duration.between(since.get(client), clock.instant()))
                : Optional.empty();
    }

    synchronized void handedStale(String client) {
        stale.merge(ClientKind.of(client), 1, Integer::sum);
        state(client, State.IDLE);
    }

    synchronized List<Belief> beliefs() {
        return List.copyOf(beliefs);
    }

    synchronized Map<ClientKind, Long> beliefsByKind() {
        Map<ClientKind, Long> counts = new EnumMap<>(ClientKind.class);
        beliefs.forEach(b -> counts.merge(ClientKind.of(b.client()), 1L, Long::sum));
        return counts;
    }

    /** Leases handed to a client that had already said they ended, by client kind. */
    synchronized Map<ClientKind, Integer> staleHandOvers() {
        return Map.copyOf(stale);
    }

    /** Lines no rule reads: a client's bug, which the run reports. */
    synchronized List<String> unreadable() {
        return List.copyOf(unreadable);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                open.add(socket);
                Thread serving = new Thread(() -> serve(socket), "belief-recorder-client");
                serving.setDaemon(true);
                serving.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** A job's belief so far: when it began, under which lease. */
    private record Job(String client, String resource, String owner, long token, Share share, Instant from) {
    }

    private void serve(Socket socket) {
        Optional<Job> job = Optional.empty();
        try (socket; BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.UTF_8))) {
            OutputStream out = socket.getOutputStream();
            for (String line; (line = in.readLine()) != null; ) {
                Optional<Job> started = read(line, out);
                if (started.isPresent()) {
                    job = started;
                }
            }
        } catch (IOException e) {
            // the client's end went away: as good as closed
        } finally {
            open.remove(socket);
            Instant dead = clock.instant();
            job.ifPresent(j -> believed(new Belief(j.client(), j.resource(), j.owner(), j.token(), j.share(), j.from(),
                    dead.isBefore(j.from()) ? j.from() : dead, "job-dead")));
        }
    }

    private Optional<Job> read(String line, OutputStream out) throws IOException {
        String[] words = line.split(" ", 2);
        String[] args = words.length > 1 ? words[1].split(" ") : new String[0];
        try {
            switch (words[0]) {
                case "waiting" -> state(args[0], State.WAITING);
                case "holding" -> state(args[0], State.HOLDING);
                case "stale" -> handedStale(args[0]);
                case "belief" -> believed(belief(JSON.readTree(words[1])));
                case "start" -> {
                    state(args[0], State.HOLDING);
                    return Optional.of(new Job(args[0], args[1], args[2], Long.parseLong(args[3]),
                            share(Integer.parseInt(args[4])), Instant.ofEpochMilli(Long.parseLong(args[5]))));
                }
                case "write" -> {
                    OptionalLong refused = store.write(args[0], args[1], Long.parseLong(args[2]), clock.instant());
                    out.write(((refused.isPresent() ? "refused " + refused.getAsLong() : "ok") + "\n")
                            .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                default -> unreadable(line);
            }
        } catch (RuntimeException e) { // a line cut short, a number that is none
            unreadable(line + " (" + e + ")");
        }
        return Optional.empty();
    }

    private synchronized void unreadable(String line) {
        unreadable.add(line);
    }

    private static Belief belief(JsonNode json) {
        return new Belief(json.path("client").asText(), json.path("resource").asText(), json.path("owner").asText(),
                json.path("token").asLong(), share(json.path("limit").asInt()),
                Instant.ofEpochMilli(json.path("from_ms").asLong()), Instant.ofEpochMilli(json.path("until_ms").asLong()),
                json.path("end").asText());
    }

    /** 0: the whole resource; N: one of N shared permits. */
    private static Share share(int limit) {
        return limit == 0 ? Share.EXCLUSIVE : Share.shared(limit);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : open) {
            socket.close();
        }
    }
}
