package dev.lockstep.replay;

import dev.lockstep.protocol.Sha256;

/**
 * What a replay keeps of a reply or event it expects: its SHA-256, not its bytes, so that a replay
 * of a long log holds a few words per record. Published bytes that differ have another digest;
 * collision resistance matters, not only second preimages, because a producer of commands chooses
 * most of what a reply says.
 */
record Digest(long w0, long w1, long w2, long w3) {

    static Digest of(byte[] bytes) {
        byte[] sha = Sha256.of(bytes);
        return new Digest(Sha256.word(sha, 0), Sha256.word(sha, 8), Sha256.word(sha, 16), Sha256.word(sha, 24));
    }
}
