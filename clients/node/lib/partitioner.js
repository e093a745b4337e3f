'use strict';
// The Java client's default partitioner: murmur2(key) mod the partition count. The worker orders,
// times and fences each resource on the partition this picks, and refuses a command found elsewhere.

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2), as a signed 32-bit integer. */
function murmur2(bytes) {
  const m = 0x5bd1e995;
  const length = bytes.length;
  let h = (0x9747b28c ^ length) | 0;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = (bytes[i4] & 0xff) | ((bytes[i4 + 1] & 0xff) << 8) | ((bytes[i4 + 2] & 0xff) << 16) | ((bytes[i4 + 3] & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const tail = length & ~3;
  switch (length % 4) {
    case 3: h ^= (bytes[tail + 2] & 0xff) << 16; // falls through
    case 2: h ^= (bytes[tail + 1] & 0xff) << 8; // falls through
    case 1:
      h ^= bytes[tail] & 0xff;
      h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition of `key` (a string, UTF-8) among `count` partitions, as the Java producer picks it. */
function partitionOf(key, count) {
  return (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % count;
}

/** A KafkaJS createPartitioner that always picks the Java client's partition. */
const JavaPartitioner = () => ({ partitionMetadata, message }) => partitionOf(message.key.toString('utf8'), partitionMetadata.length);

module.exports = { murmur2, partitionOf, JavaPartitioner };
