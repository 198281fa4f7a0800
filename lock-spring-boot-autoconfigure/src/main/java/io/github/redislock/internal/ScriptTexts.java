package io.github.redislock.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ClassPathResource;

/**
 * The text of a lock script as Redis runs it: {@value #PRELUDE} (the opening every script
 * shares: the replication guard, the server clock, publishing and the shared reply codes)
 * followed by the script, both read from this package's folder on the classpath.
 * {@link LockScripts} loads every script through here, so the SHA1 Redis knows a script
 * by covers the prelude too. Public only for the tests and the model's replays that
 * evaluate a script themselves: they read it here, so they run exactly what the library
 * runs. Not an API.
 */
public final class ScriptTexts {

	/** The shared opening, in front of every script. */
	public static final String PRELUDE = "prelude.lua";

	private static final String PRELUDE_TEXT = resource(PRELUDE);

	private ScriptTexts() {
	}

	/**
	 * A script's text as loaded: the prelude, then the script.
	 * @param name the script's file name in this package's folder ({@code "lock.lua"})
	 * @return the text Redis runs
	 * @throws UncheckedIOException if the script cannot be read
	 */
	public static String text(String name) {
		return PRELUDE_TEXT + resource(name);
	}

	/** The prelude's own text, which {@link #text} puts in front of every script. */
	public static String prelude() {
		return PRELUDE_TEXT;
	}

	// from this package's folder, not the classpath's root, where an application's own
	// lock.lua could shadow it
	private static String resource(String name) {
		try {
			return new ClassPathResource(name, ScriptTexts.class).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the lock script '" + name + "' from the classpath", ex);
		}
	}

}
