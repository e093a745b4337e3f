package dev.lockstep.cli;

import dev.lockstep.client.MonotonicInstant;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code exec} and its job's guard say to each other over their connection (a Unix domain
 * socket): exec gives orders, the guard reports. Each order carries exec's monotonic clock
 * reading as it was sent, which the guard compares with its own ({@link JobGuard}).
 */
final class GuardLink implements AutoCloseable {

    /** From exec to its guard. */
    sealed interface Order {

        /** Exec's monotonic clock as it sent the order. */
        MonotonicInstant sentAt();
    }

    /** Run the job with these variables while the lease's local validity lasts. */
    record Run(MonotonicInstant sentAt, Map<String, String> environment, MonotonicInstant validUntil,
            Duration grace) implements Order {
    }

    /** A renewal answered: the lease's local validity now ends later. */
    record Valid(MonotonicInstant sentAt, MonotonicInstant validUntil) implements Order {
    }

    /** The lease is known lost. */
    record Lost(MonotonicInstant sentAt) implements Order {
    }

    /** Exec was told to stop (SIGTERM, Ctrl-C): pass SIGTERM on to the job. */
    record Stop(MonotonicInstant sentAt) implements Order {
    }

    /** From the guard to exec. */
    sealed interface Report {
    }

    record Started(long pid) implements Report {
    }

    /** The job was not started, and why. */
    record NotStarted(Refusal refusal, String why) implements Report {
    }

    enum Refusal {
        /** The command could not be started. */
        CANNOT_RUN,
        /** Too little of the lease's local validity was left to run the job in. */
        TOO_LATE,
        /** The guard does not read exec's monotonic clock: it could not keep the lease's time. */
        OTHER_CLOCK
    }

    /** The job exited with {@code exitCode}; {@code cause} says why the guard stopped it, if it did. */
    record Ended(int exitCode, Optional<GuardPlan.Cause> cause) implements Report {
    }

    private final SocketChannel channel;
    private final DataInputStream in;
    private final DataOutputStream out;

    private GuardLink(SocketChannel channel) {
        this.channel = channel;
        this.in = new DataInputStream(new BufferedInputStream(new ChannelIn(channel)));
        this.out = new DataOutputStream(new BufferedOutputStream(new ChannelOut(channel)));
    }

    static GuardLink over(SocketChannel channel) {
        return new GuardLink(channel);
    }

    synchronized void send(Order order) throws IOException {
        if (order instanceof Run run) {
            out.writeByte('R');
            out.writeLong(run.sentAt().nanos());
            out.writeInt(run.environment().size());
            for (Map.Entry<String, String> variable : run.environment().entrySet()) {
                writeString(variable.getKey());
                writeString(variable.getValue());
            }
            out.writeLong(run.validUntil().nanos());
            out.writeLong(run.grace().toNanos());
        } else if (order instanceof Valid valid) {
            out.writeByte('V');
            out.writeLong(valid.sentAt().nanos());
            out.writeLong(valid.validUntil().nanos());
        } else if (order instanceof Lost lost) {
            out.writeByte('L');
            out.writeLong(lost.sentAt().nanos());
        } else if (order instanceof Stop stop) {
            out.writeByte('S');
            out.writeLong(stop.sentAt().nanos());
        }
        out.flush();
    }

    /** The next order; {@link java.io.EOFException} when exec closed the connection (or died). */
    Order nextOrder() throws IOException {
        int tag = in.readUnsignedByte();
        MonotonicInstant sentAt = new MonotonicInstant(in.readLong());
        return switch (tag) {
            case 'R' -> {
                int count = in.readInt();
                Map<String, String> environment = new LinkedHashMap<>();
                for (int i = 0; i < count; i++) {
                    environment.put(readString(), readString());
                }
                yield new Run(sentAt, environment, new MonotonicInstant(in.readLong()), Duration.ofNanos(in.readLong()));
            }
            case 'V' -> new Valid(sentAt, new MonotonicInstant(in.readLong()));
            case 'L' -> new Lost(sentAt);
            case 'S' -> new Stop(sentAt);
            default -> throw new IOException("not an order: " + tag);
        };
    }

    synchronized void send(Report report) throws IOException {
        if (report instanceof Started started) {
            out.writeByte('S');
            out.writeLong(started.pid());
        } else if (report instanceof NotStarted notStarted) {
            out.writeByte('N');
            out.writeByte(notStarted.refusal().ordinal());
            writeString(notStarted.why());
        } else if (report instanceof Ended ended) {
            out.writeByte('E');
            out.writeInt(ended.exitCode());
            out.writeByte(ended.cause().map(cause -> cause.ordinal() + 1).orElse(0));
        }
        out.flush();
    }

    /** The next report; {@link java.io.EOFException} when the guard closed the connection (or died). */
    Report nextReport() throws IOException {
        int tag = in.readUnsignedByte();
        return switch (tag) {
            case 'S' -> new Started(in.readLong());
            case 'N' -> new NotStarted(Refusal.values()[in.readUnsignedByte()], readString());
            case 'E' -> {
                int exitCode = in.readInt();
                int cause = in.readUnsignedByte();
                yield new Ended(exitCode, cause == 0 ? Optional.empty()
                        : Optional.of(GuardPlan.Cause.values()[cause - 1]));
            }
            default -> throw new IOException("not a report: " + tag);
        };
    }

    private void writeString(String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private String readString() throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    // Streams over the channel itself: Channels.newInputStream holds the channel's blocking lock
    // while it waits to read, which would keep the other side's orders from being written meanwhile.

    private static final class ChannelIn extends InputStream {

        private final SocketChannel channel;

        ChannelIn(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            return length == 0 ? 0 : channel.read(ByteBuffer.wrap(bytes, offset, length));
        }
    }

    private static final class ChannelOut extends OutputStream {

        private final SocketChannel channel;

        ChannelOut(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }
}
