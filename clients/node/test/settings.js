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

/**
 * The TCP proxy between some clients and the broker, which a case cuts: its control URL (POST /cut, /blackhole,
 * /heal) and the bootstrap address through it; a suite without one fails, saying what to start.
 */
function brokerLink() {
  const control = process.env.LOCKSTEP_BROKER_LINK;
  const bootstrap = process.env.LOCKSTEP_PROXIED_BOOTSTRAP;
  if (!control || !bootstrap) {
    throw new Error('set LOCKSTEP_BROKER_LINK (the control URL of a TCP proxy in front of the broker: POST /cut, '
      + '/blackhole, /heal) and LOCKSTEP_PROXIED_BOOTSTRAP (the bootstrap address through it); ClientSuitesIT starts one in CI');
  }
  return { control: control.replace(/\/+$/, ''), bootstrap };
}

module.exports = { settings, deadLetterTopic, brokerLink };
