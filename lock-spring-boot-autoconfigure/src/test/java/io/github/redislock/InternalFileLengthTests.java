package io.github.redislock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No main source file of the engine ({@code internal}) is longer than a reader holds in
 * their head: {@value #MAX_LINES} lines, counted as {@code wc -l} counts them. A file
 * that grows past it has taken on a second job and is to be split along it, not let
 * through by raising the limit; this fails naming each such file and its length.
 */
class InternalFileLengthTests {

	private static final int MAX_LINES = 400;

	private static final Path INTERNAL = Path.of("src/main/java/io/github/redislock/internal");

	@Test
	void noEngineFileIsLongerThanTheLimit() throws IOException {
		assertThat(INTERNAL).as("the engine's sources, from the module's directory").isDirectory();
		List<String> tooLong = new ArrayList<>();
		try (Stream<Path> files = Files.walk(INTERNAL)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).sorted().toList()) {
				long lines = lines(file);
				if (lines > MAX_LINES) {
					tooLong.add(INTERNAL.relativize(file) + ": " + lines + " lines");
				}
			}
		}
		assertThat(tooLong).as("engine files over " + MAX_LINES + " lines; split each along its jobs").isEmpty();
	}

	// newlines, as wc -l counts
	private static long lines(Path file) throws IOException {
		byte[] bytes = Files.readAllBytes(file);
		long lines = 0;
		for (byte each : bytes) {
			if (each == '\n') {
				lines++;
			}
		}
		return lines;
	}

}
