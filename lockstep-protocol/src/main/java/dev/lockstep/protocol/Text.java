package dev.lockstep.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.text.Normalizer;
import java.util.Optional;

/**
 * Checks on the strings of the protocol: type, length in code points, no control, invisible or
 * unassigned characters, and one spelling (NFC).
 */
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

    /**
     * Invisible characters are refused: they make two names that print the same differ (a
     * zero-width space, a bidirectional override that shows "a-b" as "b-a") or hide text in logs.
     */
    private static Optional<String> problemWith(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR ->
                    Optional.of("must not contain control characters");
            case Character.FORMAT -> Optional.of("must not contain invisible formatting characters (U+"
                    + String.format("%04X", codePoint) + ")");
            case Character.UNASSIGNED, Character.PRIVATE_USE ->
                    Optional.of("must not contain unassigned or private-use code points (U+"
                            + String.format("%04X", codePoint) + ")");
            default -> Optional.empty();
        };
    }

    static Optional<String> checkContent(String text, int maxChars) {
        if (text.isEmpty()) {
            return Optional.of("must not be empty");
        }
        // Counting code points keeps the limit a limit on characters, not on UTF-16 units.
        if (text.length() > maxChars && text.codePointCount(0, text.length()) > maxChars) {
            return Optional.of("must be at most " + maxChars + " characters");
        }
        for (int i = 0; i < text.length(); ) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)
                    && !(Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1)))) {
                return Optional.of("must be valid Unicode (unpaired surrogate)");
            }
            int codePoint = text.codePointAt(i);
            Optional<String> problem = problemWith(codePoint);
            if (problem.isPresent()) {
                return problem;
            }
            i += Character.charCount(codePoint);
        }
        // Two spellings of one text (e + combining accent, or the precomposed letter) look the same
        // and would be two resources; one normal form makes them one string or an error. ASCII has
        // one spelling only, and is what nearly every command carries.
        if (!isAscii(text) && !Normalizer.isNormalized(text, Normalizer.Form.NFC)) {
            return Optional.of("must be in Unicode normalization form NFC");
        }
        return Optional.empty();
    }

    private static boolean isAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }
}
