package dev.lockstep.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/** Checks on the strings of the protocol: type, length in code points, and no control characters. */
final class Text {

    private Text() {
    }

    /** @return what is wrong with the node as a bounded string, if anything */
    static Optional<String> check(JsonNode node, int maxChars) {
        if (node == null || node.isMissingNode()) {
            return Optional.of("is required");
        }
        if (!node.isTextual()) {
            return Optional.of("must be a string");
        }
        return checkContent(node.textValue(), maxChars);
    }

    static Optional<String> checkContent(String text, int maxChars) {
        if (text.isEmpty()) {
            return Optional.of("must not be empty");
        }
        // Counting code points keeps the limit a limit on characters, not on UTF-16 units.
        if (text.length() > maxChars && text.codePointCount(0, text.length()) > maxChars) {
            return Optional.of("must be at most " + maxChars + " characters");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                return Optional.of("must not contain control characters");
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return Optional.of("must be valid Unicode (unpaired surrogate)");
            }
        }
        return Optional.empty();
    }
}
