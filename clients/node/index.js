'use strict';
// lockstep's Node client: distributed locks on Kafka, with fencing tokens. See LockClient.
const { LockClient } = require('./lib/client');
const { HeldLease, validFrom } = require('./lib/lease');
const { murmur2, partitionOf, JavaPartitioner } = require('./lib/partitioner');
const { parseReply, mismatch } = require('./lib/replies');
const errors = require('./lib/errors');

module.exports = { LockClient, HeldLease, validFrom, murmur2, partitionOf, JavaPartitioner, parseReply, mismatch, ...errors };
