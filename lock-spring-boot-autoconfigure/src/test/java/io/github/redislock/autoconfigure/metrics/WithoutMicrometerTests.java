package io.github.redislock.autoconfigure.metrics;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer's core and Actuator are optional: an application without them, in a JVM
 * whose class path really lacks them (a filtered class loader in the same JVM would not
 * show a class that fails to link), starts, takes a lock through the annotation and
 * registers no meters.
 */
class WithoutMicrometerTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void anApplicationWithoutMicrometerCoreOrActuatorLocksAsUsual() throws Exception {
		String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> {
				String file = Path.of(entry).getFileName().toString();
				return !file.startsWith("micrometer-core") && !file.startsWith("micrometer-observation-test")
						&& !file.startsWith("spring-boot-actuator");
			})
			.collect(Collectors.joining(File.pathSeparator));
		Process process = new ProcessBuilder(
				System.getProperty("java.home") + File.separator + "bin" + File.separator + "java", "-cp", classPath,
				WithoutMicrometerApplication.class.getName(), redis.server().host(),
				Integer.toString(redis.server().port()))
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(output).contains("LOCKED 1").contains("METRICS false").doesNotContain("UNEXPECTED");
		assertThat(process.exitValue()).as(output).isZero();
	}

}
