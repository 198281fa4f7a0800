package io.github.redislock.sample.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The probe that decides whether the sample starts its own Redis tells a Redis from a
 * port where nothing, or something else, listens.
 */
class RedisProbeTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final RedisServerExtension redisWithPassword = new RedisServerExtension("--requirepass", "secret");

	@Test
	void aRunningRedisAnswers() {
		assertThat(RedisProbe.answers(redis.server().host(), redis.server().port(), TIMEOUT)).isTrue();
	}

	@Test
	void aRedisThatWantsAPasswordStillAnswers() {
		assertThat(RedisProbe.answers(redisWithPassword.server().host(), redisWithPassword.server().port(), TIMEOUT))
			.isTrue();
	}

	@Test
	void aPortWhereNothingListensDoesNotAnswer() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort();
		}
		assertThat(RedisProbe.answers("127.0.0.1", port, TIMEOUT)).isFalse();
	}

	@Test
	void aServerThatIsNotRedisDoesNotAnswer() throws IOException {
		// accepts the connection but never replies, as a wrong service might
		try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			assertThat(RedisProbe.answers("127.0.0.1", silent.getLocalPort(), TIMEOUT)).isFalse();
		}
	}

}
