package io.github.redislock.testsupport;

import java.util.UUID;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AutoConfigureTestRedis} on a Spring Boot application that has only Boot's Redis
 * auto-configuration: it talks to the test Redis whatever {@code spring.data.redis.*}
 * says (here a host that does not exist and a password the test Redis does not have), and
 * starting the context logs no error, Docker engine or not.
 */
@SpringBootTest(properties = { "spring.data.redis.host=redis.invalid", "spring.data.redis.port=1",
		"spring.data.redis.password=not-the-test-redis-password", "spring.data.redis.timeout=10s" })
@AutoConfigureTestRedis
@ExtendWith(OutputCaptureExtension.class)
class AutoConfigureTestRedisTests {

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private ObservationRegistry observationRegistry;

	@Autowired
	private LockRecorder recorder;

	@Test
	void applicationTalksToTheTestRedisWhateverItsPropertiesSay() {
		String key = "test-redis:" + UUID.randomUUID();
		this.redis.opsForValue().set(key, "written by the application");
		assertThat(SharedTestRedis.get().command("GET", key)).isEqualTo("written by the application");
	}

	@Test
	void startingTheContextLogsNoError(CapturedOutput output) {
		assertThat(output).doesNotContain("ERROR").doesNotContain("Could not find a valid Docker environment");
	}

	@Test
	void recorderHearsTheLockClientThroughTheRegistryTheContextGotForIt() {
		Observation.Context context = new Observation.Context();
		context.put(LockRecorder.NAME_ENTRY, "order:42");
		Observation hold = Observation
			.createNotStarted(LockRecorder.HOLD_OBSERVATION, () -> context, this.observationRegistry)
			.lowCardinalityKeyValues(KeyValues.of("name", "order", "mode", "exclusive"))
			.highCardinalityKeyValue("key", "lock:{order:42}")
			.start();
		assertThat(this.recorder.isHeld("order:42")).isTrue();
		hold.stop();
		assertThat(this.recorder.isHeld("order:42")).isFalse();
		assertThat(this.recorder.acquired()).containsExactly("order:42");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
