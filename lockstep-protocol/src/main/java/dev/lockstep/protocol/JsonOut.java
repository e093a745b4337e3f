package dev.lockstep.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Where the encoders write a JSON object, field by field. {@link #write} first writes it as plain
 * ASCII by hand, which is what almost every reply and event is, and falls back to Jackson's
 * generator for a document with any other character. Both give the same bytes for a plain
 * document ({@code JsonOutTest} checks it), so what is published does not depend on which wrote
 * it; the hand-written path only saves the generator's set-up, a measurable part of each reply
 * and event.
 */
interface JsonOut {

    /** A document, written to whichever output {@link #write} chooses. */
    @FunctionalInterface
    interface Body {
        void writeTo(JsonOut out) throws IOException;
    }

    ObjectMapper MAPPER = new ObjectMapper();

    static byte[] write(Body body) {
        try {
            Ascii ascii = new Ascii();
            body.writeTo(ascii);
            return ascii.bytes();
        } catch (NotPlain fallback) {
            return withJackson(body);
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to memory failed", e);
        }
    }

    static byte[] withJackson(Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (JsonGenerator json = MAPPER.createGenerator(bytes)) {
            body.writeTo(new Jackson(json));
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to memory failed", e);
        }
        return bytes.toByteArray();
    }

    void startObject() throws IOException;

    void startObject(String field) throws IOException;

    void startArray(String field) throws IOException;

    void endObject() throws IOException;

    void endArray() throws IOException;

    /** A string field, or {@code null} when {@code value} is null. */
    void string(String field, String value) throws IOException;

    void number(String field, long value) throws IOException;

    void bool(String field, boolean value) throws IOException;

    /** Jackson's generator, for any document. */
    record Jackson(JsonGenerator json) implements JsonOut {

        @Override
        public void startObject() throws IOException {
            json.writeStartObject();
        }

        @Override
        public void startObject(String field) throws IOException {
            json.writeObjectFieldStart(field);
        }

        @Override
        public void startArray(String field) throws IOException {
            json.writeArrayFieldStart(field);
        }

        @Override
        public void endObject() throws IOException {
            json.writeEndObject();
        }

        @Override
        public void endArray() throws IOException {
            json.writeEndArray();
        }

        @Override
        public void string(String field, String value) throws IOException {
            json.writeStringField(field, value);
        }

        @Override
        public void number(String field, long value) throws IOException {
            json.writeNumberField(field, value);
        }

        @Override
        public void bool(String field, boolean value) throws IOException {
            json.writeBooleanField(field, value);
        }
    }

    /** Thrown by {@link Ascii} at the first string Jackson might write otherwise: start again with Jackson. */
    final class NotPlain extends RuntimeException {

        NotPlain() {
            super(null, null, false, false);
        }
    }

    /**
     * Plain documents by hand: field names and values of printable ASCII without quote or
     * backslash, which Jackson writes unescaped, as they are.
     */
    final class Ascii implements JsonOut {

        private byte[] buffer = new byte[256];
        private int length;
        /** Whether the next value in the current object or array is its first: no comma before it. */
        private boolean first = true;

        byte[] bytes() {
            return Arrays.copyOf(buffer, length);
        }

        @Override
        public void startObject() {
            separate();
            put('{');
            first = true;
        }

        @Override
        public void startObject(String field) {
            name(field);
            put('{');
            first = true;
        }

        @Override
        public void startArray(String field) {
            name(field);
            put('[');
            first = true;
        }

        @Override
        public void endObject() {
            put('}');
            first = false;
        }

        @Override
        public void endArray() {
            put(']');
            first = false;
        }

        @Override
        public void string(String field, String value) {
            name(field);
            if (value == null) {
                plain("null");
            } else {
                put('"');
                plain(value);
                put('"');
            }
        }

        @Override
        public void number(String field, long value) {
            name(field);
            plain(Long.toString(value));
        }

        @Override
        public void bool(String field, boolean value) {
            name(field);
            plain(value ? "true" : "false");
        }

        private void name(String field) {
            separate();
            put('"');
            plain(field);
            put('"');
            put(':');
        }

        private void separate() {
            if (!first) {
                put(',');
            }
            first = false;
        }

        private void plain(String text) {
            int size = text.length();
            ensure(size);
            for (int i = 0; i < size; i++) {
                char c = text.charAt(i);
                if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') {
                    throw new NotPlain();
                }
                buffer[length++] = (byte) c;
            }
        }

        private void put(char c) {
            ensure(1);
            buffer[length++] = (byte) c;
        }

        private void ensure(int more) {
            if (length + more > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + more));
            }
        }
    }
}
