package dev.lockstep.engine;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The reply topics a command may route its reply to. An entry is an exact topic name, or a
 * prefix followed by {@code *} ({@code lock.replies.*} allows {@code lock.replies.svc-a}).
 * Anything else is refused, so the worker can never be used to write into arbitrary topics.
 */
public record TopicAllowList(List<String> entries) {

    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    public static final List<String> DEFAULT = List.of("lock.replies", "lock.replies.*");

    public TopicAllowList {
        entries = List.copyOf(entries);
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("the reply topic allow-list must not be empty");
        }
        for (String entry : entries) {
            String name = entry.endsWith("*") ? entry.substring(0, entry.length() - 1) : entry;
            if (!name.isEmpty() && !LEGAL_TOPIC.matcher(name).matches() || name.isEmpty() || name.contains("*")) {
                throw new IllegalArgumentException("not a topic name or prefix*: " + entry);
            }
        }
    }

    public boolean allows(String topic) {
        if (!LEGAL_TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            return false;
        }
        for (String entry : entries) {
            boolean match = entry.endsWith("*")
                    ? topic.startsWith(entry.substring(0, entry.length() - 1)) && topic.length() >= entry.length()
                    : topic.equals(entry);
            if (match) {
                return true;
            }
        }
        return false;
    }
}
