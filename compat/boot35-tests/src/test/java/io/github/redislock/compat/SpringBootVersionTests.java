package io.github.redislock.compat;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards this module's purpose: the shared tests it runs must really run on Spring Boot
 * 3.5 and Spring Framework 6.2, not on versions leaking in from the main build.
 */
class SpringBootVersionTests {

	@Test
	void runsOnSpringBoot35() {
		assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
		assertThat(SpringVersion.getVersion()).startsWith("6.2.");
	}

}
