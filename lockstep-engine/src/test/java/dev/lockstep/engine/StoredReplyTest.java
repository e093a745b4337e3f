package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Replies packed into a replay's shared arrays are the same replies. */
class StoredReplyTest {

    @Test
    void aPackedReplyEqualsItsOriginalByContentAcrossSlabs() {
        StoredReply.Slab slab = new StoredReply.Slab();
        List<StoredReply> originals = new ArrayList<>();
        List<StoredReply> packed = new ArrayList<>();
        for (int i = 0; i < 12_000; i++) {
            // Enough to fill several slabs, with one reply larger than a slab.
            String text = i == 5_000 ? "x".repeat(StoredReply.SLAB_BYTES + 10) : "{\"request_id\":\"r" + i + "\",\"n\":"
                    + "7".repeat(i % 200) + "}";
            StoredReply original = StoredReply.ofText(text);
            originals.add(original);
            packed.add(original.packInto(slab));
        }
        for (int i = 0; i < originals.size(); i++) {
            StoredReply original = originals.get(i);
            StoredReply copy = packed.get(i);
            assertThat(copy).isEqualTo(original).hasSameHashCodeAs(original);
            assertThat(copy.bytes()).isEqualTo(original.bytes());
            assertThat(copy.text()).isEqualTo(original.text());
        }
        assertThat(packed.get(1)).isNotEqualTo(packed.get(2));
        assertThat(StoredReply.of("{}".getBytes(StandardCharsets.UTF_8)).bytes()).isEqualTo("{}".getBytes(StandardCharsets.UTF_8));
    }
}
