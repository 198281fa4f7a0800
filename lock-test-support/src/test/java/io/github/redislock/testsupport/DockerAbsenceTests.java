package io.github.redislock.testsupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Looking for Docker logs no error: without an engine Testcontainers, which would log
 * "ERROR ... Could not find a valid Docker environment", is not asked, and nothing at all
 * is printed. (CI and most development machines of this project have no Docker engine;
 * with one, Testcontainers is asked and finds it, and logs no error either.)
 */
@ExtendWith(OutputCaptureExtension.class)
class DockerAbsenceTests {

	@Test
	void lookingForDockerLogsNoError(CapturedOutput output) {
		boolean docker = RedisContainer.checkDocker();
		assertThat(output).doesNotContain("ERROR").doesNotContain("Could not find a valid Docker environment");
		if (!docker) {
			assertThat(output.getAll()).isEmpty();
		}
	}

	@Test
	void startingARedisWithoutDockerLogsNoError(CapturedOutput output) {
		try (RedisServer server = RedisServers.start()) {
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
		assertThat(output).doesNotContain("ERROR").doesNotContain("Could not find a valid Docker environment");
	}

}
