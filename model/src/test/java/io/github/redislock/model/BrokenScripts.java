package io.github.redislock.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Scripts broken on purpose, which a replay must catch: copies under
 * src/test/resources/broken.
 */
final class BrokenScripts {

	private BrokenScripts() {
	}

	/** The broken copy of the library's script of that name. */
	static String copy(String name) {
		try (InputStream in = BrokenScripts.class.getResourceAsStream("/broken/" + name + ".lua")) {
			return new String(Objects.requireNonNull(in, name).readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
