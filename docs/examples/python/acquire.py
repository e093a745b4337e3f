#!/usr/bin/env python3
"""Send one lockstep command from Python (confluent-kafka, librdkafka) and print its reply.

    python3 acquire.py --bootstrap 127.0.0.1:9092 --resource payment:42 --owner worker-1 --ttl 30

librdkafka's default partitioner is not the Java client's: without partitioner=murmur2_random a
command lands on another partition than the worker expects, and is answered `invalid`.
"""
import argparse
import json
import sys
import time
import uuid

from confluent_kafka import Consumer, Producer, TopicPartition


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", default="127.0.0.1:9092")
    parser.add_argument("--command-topic", default="lock.commands")
    parser.add_argument("--reply-topic", default="lock.replies")
    parser.add_argument("--type", default="acquire", choices=["acquire", "renew", "release", "status"])
    parser.add_argument("--resource", required=True)
    parser.add_argument("--owner")
    parser.add_argument("--ttl", type=int)
    parser.add_argument("--timeout", type=float, default=10.0)
    # Only to show what goes wrong without it: librdkafka's default is consistent_random.
    parser.add_argument("--partitioner", default="murmur2_random")
    args = parser.parse_args()

    request_id = str(uuid.uuid4())
    command = {"request_id": request_id, "type": args.type, "resource": args.resource}
    if args.owner is not None:
        command["owner"] = args.owner
    if args.ttl is not None:
        command["ttl_seconds"] = args.ttl

    # Start reading the reply topic at its end before publishing, so the reply cannot be missed.
    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": "unused-" + request_id,
                         "enable.auto.commit": False})
    partitions = consumer.list_topics(args.reply_topic, timeout=args.timeout).topics[args.reply_topic].partitions
    assignment = []
    for p in partitions:
        _, high = consumer.get_watermark_offsets(TopicPartition(args.reply_topic, p), timeout=args.timeout)
        assignment.append(TopicPartition(args.reply_topic, p, high))
    consumer.assign(assignment)

    producer = Producer({"bootstrap.servers": args.bootstrap, "partitioner": args.partitioner,
                         "enable.idempotence": True, "acks": "all"})
    producer.produce(args.command_topic, key=args.resource.encode("utf-8"),
                     value=json.dumps(command).encode("utf-8"))
    if producer.flush(args.timeout) != 0:
        sys.exit("the command was not acknowledged by the broker")

    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        message = consumer.poll(0.2)
        if message is None or message.error():
            continue
        if message.key() == request_id.encode("utf-8"):
            print(message.value().decode("utf-8"))
            consumer.close()
            return
    consumer.close()
    sys.exit("no reply for request_id %s within %.0f s" % (request_id, args.timeout))


if __name__ == "__main__":
    main()
