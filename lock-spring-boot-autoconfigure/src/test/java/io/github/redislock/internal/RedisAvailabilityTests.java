package io.github.redislock.internal;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@link RedisAvailability} tells of one incident: one WARN when Redis is lost, one
 * INFO when it answers again, and nothing more for the calls of that incident whose
 * failure comes late, such as a call sent during the outage whose timeout runs out just
 * after Redis came back.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisAvailabilityTests {

	private final RedisAvailability availability = new RedisAvailability("127.0.0.1:6390");

	@Test
	void aCallSentBeforeRedisWasBackFailingAfterItOpensNoNewIncident(CapturedOutput output) {
		this.availability.unreachable("Connection refused", System.nanoTime());
		long sentDuringTheOutage = System.nanoTime();
		// an answer within a second of the loss ends nothing: keep answering until one
		// does
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
			this.availability.answered(System.nanoTime());
			return output.getAll().contains("answers again, after");
		});
		this.availability.unreachable("no answer within 500ms", sentDuringTheOutage);
		assertThat(lines(output, "cannot be reached")).isEqualTo(1);
		this.availability.unreachable("Connection reset", System.nanoTime());
		assertThat(lines(output, "cannot be reached")).isEqualTo(2);
		assertThat(lines(output, "answers again, after")).isEqualTo(1);
	}

	private static long lines(CapturedOutput output, String text) {
		return output.getAll().lines().filter((line) -> line.contains(text)).count();
	}

}
