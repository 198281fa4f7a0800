package io.github.redislock.model;

/**
 * A script broken on purpose, which a replay must catch: the library's real script (read
 * from the class path, as the replays read it) with one exact snippet replaced, so that
 * the broken script never drifts from the real one. If the snippet is no longer found
 * exactly once, the mutation fails instead of testing a script nobody meant.
 *
 * @param script the library's script, by name ("unlock")
 * @param snippet the exact text replaced, found exactly once in it
 * @param replacement what it becomes
 */
record Mutation(String script, String snippet, String replacement) {

	/** The script's file name, for messages. */
	String file() {
		return this.script + ".lua";
	}

	/**
	 * The broken script.
	 * @throws AssertionError if the snippet is not found exactly once in the real script
	 */
	String apply() {
		String real = Replay.classpathScript(this.script);
		int found = 0;
		for (int at = real.indexOf(this.snippet); at >= 0; at = real.indexOf(this.snippet, at + 1)) {
			found++;
		}
		if (found != 1) {
			throw new AssertionError(
					"The mutation of %s did not apply: \"%s\" is in it %d times, not once; update the mutation to the script"
						.formatted(file(), this.snippet, found));
		}
		return real.replace(this.snippet, this.replacement);
	}

}
