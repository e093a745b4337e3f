package dev.lockstep.worker;

/**
 * The command topic as the cluster has it now: its topic ID names the incarnation (a topic
 * deleted and created again under the same name gets a new one), and its partition count.
 */
record TopicIdentity(String topicId, int partitions) {
}
