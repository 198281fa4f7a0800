package io.github.redislock.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Which {@code redis-server} a test starts: the one {@code REDIS_SERVER} names, never
 * another one in its place.
 */
class RedisExecutableTests {

	@Test
	void aRedisServerThatIsNoExecutableFailsNamingThePathAndTheFix(@TempDir Path directory) throws IOException {
		Path notExecutable = Files.writeString(directory.resolve("redis-server"), "");
		for (String configured : new String[] { "/nonexistent/redis-server", notExecutable.toString() }) {
			assertThatIllegalStateException().isThrownBy(() -> RedisProcess.findServer(configured))
				.withMessageContaining("REDIS_SERVER is '" + configured + "'")
				.withMessageContaining("unset it to use the one on the PATH");
		}
	}

	@Test
	void aRedisServerThatIsAnExecutableIsTheOneStarted() {
		String onThePath = RedisProcess.findServer(null);
		assertThat(onThePath).as("a redis-server on this machine's PATH").isNotNull();
		assertThat(RedisProcess.findServer(onThePath)).isEqualTo(onThePath);
	}

	@Test
	void anEmptyRedisServerMeansThePath() {
		assertThat(RedisProcess.findServer(" ")).isEqualTo(RedisProcess.findServer(null));
	}

}
