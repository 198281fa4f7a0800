package io.github.redislock.model;

import java.util.ArrayList;
import java.util.List;

/**
 * A script broken on purpose, which a replay must catch: the library's real script (read
 * from the class path, as the replays read it) with exact snippets replaced, so that the
 * broken script never drifts from the real one. If a snippet is no longer found exactly
 * once, the mutation fails instead of testing a script nobody meant.
 *
 * @param script the library's script, by name ("unlock")
 * @param edits the snippets replaced, in order
 */
record Mutation(String script, List<Edit> edits) {

	/**
	 * One snippet replaced.
	 *
	 * @param snippet the exact text replaced, found exactly once in the script
	 * @param replacement what it becomes
	 */
	record Edit(String snippet, String replacement) {
	}

	Mutation(String script, String snippet, String replacement) {
		this(script, List.of(new Edit(snippet, replacement)));
	}

	/** This mutation, with one more snippet of the same script replaced. */
	Mutation andThen(String snippet, String replacement) {
		List<Edit> more = new ArrayList<>(this.edits);
		more.add(new Edit(snippet, replacement));
		return new Mutation(this.script, List.copyOf(more));
	}

	/** The script's file name, for messages. */
	String file() {
		return this.script + ".lua";
	}

	/**
	 * The broken script.
	 * @throws AssertionError if a snippet is not found exactly once in the real script
	 */
	String apply() {
		String broken = Replay.classpathScript(this.script);
		for (Edit edit : this.edits) {
			int found = 0;
			for (int at = broken.indexOf(edit.snippet()); at >= 0; at = broken.indexOf(edit.snippet(), at + 1)) {
				found++;
			}
			if (found != 1) {
				throw new AssertionError(
						"The mutation of %s did not apply: \"%s\" is in it %d times, not once; update the mutation to the script"
							.formatted(file(), edit.snippet(), found));
			}
			broken = broken.replace(edit.snippet(), edit.replacement());
		}
		return broken;
	}

}
