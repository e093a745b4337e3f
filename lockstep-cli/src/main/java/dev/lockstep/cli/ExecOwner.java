package dev.lockstep.cli;

import dev.lockstep.protocol.Limits;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Optional;
import java.security.SecureRandom;

/**
 * The lease owner of one {@code lockstep exec} process: the user's label, then a suffix no other
 * process has ({@code nightly-host-1/exec-4711-9f2c01ab}: this process's PID and 32 random bits).
 * The same owner acquiring again extends its lease, which is right for one process re-acquiring
 * and wrong for two: two cron runs of one job on one host, labelled alike, would both run. With a
 * suffix per process they take turns, and the label still shows in status, locks, audit and events.
 */
record ExecOwner(String label, String owner) {

    private static final int SUFFIX_CHARS = "/exec-".length() + 20 + 1 + 8;
    static final int MAX_LABEL_CHARS = Limits.MAX_OWNER_CHARS - SUFFIX_CHARS;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** @throws IllegalArgumentException when the label is blank or too long for the suffix to fit */
    static ExecOwner of(Optional<String> label) {
        String chosen = label.map(String::strip).orElseGet(ExecOwner::hostName);
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("--owner must not be blank");
        }
        if (chosen.codePointCount(0, chosen.length()) > MAX_LABEL_CHARS) {
            throw new IllegalArgumentException("--owner is a label of at most " + MAX_LABEL_CHARS
                    + " characters: the lease owner adds a suffix unique to this process");
        }
        byte[] nonce = new byte[4];
        RANDOM.nextBytes(nonce);
        return new ExecOwner(chosen, chosen + "/exec-" + ProcessHandle.current().pid() + "-"
                + HexFormat.of().formatHex(nonce));
    }

    /** The kernel's host name, without asking DNS (which {@link InetAddress#getLocalHost()} may). */
    private static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (IOException unknown) {
                return "exec";
            }
        }
    }
}
