package io.github.redislock.sample;

import io.github.redislock.sample.redis.EmbeddedRedisStarter;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The sample shop: stock reservations, account transfers and a scheduled audit, each
 * guarded by a distributed lock, plus a demo of what happens without one. See the
 * module's {@code README-SECTION.md}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		// Only a person running the sample gets a Redis started for them; the tests bring
		// their own.
		application.addListeners(new EmbeddedRedisStarter());
		application.run(args);
	}

}
