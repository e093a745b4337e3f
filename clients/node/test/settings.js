'use strict';
// Where the worker under test is; a suite without one fails, saying what to start.
function settings() {
  const bootstrap = process.env.LOCKSTEP_BOOTSTRAP;
  if (!bootstrap) {
    throw new Error('set LOCKSTEP_BOOTSTRAP to a broker with a lockstep worker running '
      + '(target/lockstep dev starts one at 127.0.0.1:9092); ClientSuitesIT does this in CI');
  }
  return {
    brokers: bootstrap.split(','),
    commandTopic: process.env.LOCKSTEP_COMMAND_TOPIC || 'lock.commands',
    replyTopic: process.env.LOCKSTEP_REPLY_TOPIC || 'lock.replies',
  };
}

/** A topic no worker reads commands from: commands sent there are never answered. */
function deadLetterTopic() {
  return process.env.LOCKSTEP_DEAD_LETTER_TOPIC || 'lock.commands.dlq';
}

module.exports = { settings, deadLetterTopic };
