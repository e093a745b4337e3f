package dev.lockstep.cli;

import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into a graceful stop. Handling the signals (rather than a shutdown
 * hook) lets the process finish its batch, commit, and exit 0 on its own.
 */
final class Signals {

    private Signals() {
    }

    static void onTerminate(Runnable stop) {
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), signal -> stop.run());
        }
    }
}
