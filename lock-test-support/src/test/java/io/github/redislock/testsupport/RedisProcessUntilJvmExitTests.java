package io.github.redislock.testsupport;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A server started to last until the JVM exits stops when the pipe to its standard input
 * closes, as it does when the JVM exits, however it exits, and not before: no shutdown
 * hook races the application contexts that still use it.
 */
class RedisProcessUntilJvmExitTests {

	@Test
	void serverRunsUntilTheJvmsEndOfItsInputAndStopsThen() {
		RedisProcess server = RedisProcess.startUntilJvmExit();
		assertThat(RespCommand.answers(server.host(), server.port())).isTrue();
		assertThat(server.isRunning()).isTrue();
		server.closeStandardInput();
		await().atMost(Duration.ofSeconds(10)).until(() -> !RespCommand.answers(server.host(), server.port()));
		await().atMost(Duration.ofSeconds(10)).until(() -> !server.isRunning());
		server.close();
	}

}
