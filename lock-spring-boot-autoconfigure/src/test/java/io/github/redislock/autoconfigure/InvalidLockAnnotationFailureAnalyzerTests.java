package io.github.redislock.autoconfigure;

import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.InvalidLockAnnotationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.UrlResource;
import org.springframework.core.io.support.PropertiesLoaderUtils;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A {@code @DistributedLock} mistake found at start-up appears in Spring Boot's
 * "APPLICATION FAILED TO START" report with a description and an action, not only deep in
 * a stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class InvalidLockAnnotationFailureAnalyzerTests {

	@Test
	void theAnalysisSaysWhatIsWrongAndHowToFixIt() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withBean(PrivateLock.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidLockAnnotationFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).isEqualTo("@DistributedLock on PrivateLock.ship(String) can "
						+ "never take its lock: the method is private, and the Spring proxy that takes the lock "
						+ "only sees calls it can override.");
				assertThat(analysis.getAction()).isEqualTo("Make the method public (or protected or "
						+ "package-private) and call it on the bean from another bean, not as this.ship(...).");
				assertThat(analysis.getCause()).isInstanceOf(InvalidLockAnnotationException.class);
			});
	}

	@Test
	void theAnalyzerIsRegisteredWithSpringBoot() throws Exception {
		List<String> analyzers = new ArrayList<>();
		Enumeration<URL> factories = getClass().getClassLoader().getResources("META-INF/spring.factories");
		while (factories.hasMoreElements()) {
			Properties properties = PropertiesLoaderUtils.loadProperties(new UrlResource(factories.nextElement()));
			String names = properties.getProperty(FailureAnalyzer.class.getName());
			if (names != null) {
				analyzers.addAll(StringUtils.commaDelimitedListToSet(names));
			}
		}
		assertThat(analyzers).contains(InvalidLockAnnotationFailureAnalyzer.class.getName());
	}

	@Test
	void aFailedStartShowsItInBootsReport(CapturedOutput output) {
		SpringApplication application = new SpringApplication(BadApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(application::run);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Description:")
			.contains("@DistributedLock on BadKey.ship(String): key expression '#ordrId' uses #ordrId, which is "
					+ "not a parameter of the method (parameters: orderId).")
			.contains("Action:")
			.contains("Use a parameter's name, #p0/#a0 by position, or #root.args[0].");
	}

	@Test
	void aBadPropertyShowsInBootsReportToo(CapturedOutput output) {
		SpringApplication application = new SpringApplication(GoodApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(java.util.Map.of("redis-lock.wait-time", "-1s"));
		assertThatException().isThrownBy(application::run);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Failed to bind properties under 'redis-lock")
			.contains("redis-lock.wait-time must not be negative")
			.contains("Action:");
	}

	static class PrivateLock {

		@DistributedLock(key = "#id")
		private void ship(String id) {
		}

		public void call(String id) {
			ship(id);
		}

	}

	static class BadKey {

		@DistributedLock(key = "#ordrId")
		public void ship(String orderId) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RedisLockAutoConfiguration.class)
	static class GoodApplication {

		@Bean
		LettuceConnectionFactory redisConnectionFactory() {
			// never connected: start-up fails first
			return new LettuceConnectionFactory("127.0.0.1", 1);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(RedisLockAutoConfiguration.class)
	static class BadApplication {

		@Bean
		LettuceConnectionFactory redisConnectionFactory() {
			// never connected: start-up fails first
			return new LettuceConnectionFactory("127.0.0.1", 1);
		}

		@Bean
		BadKey badKey() {
			return new BadKey();
		}

	}

}
