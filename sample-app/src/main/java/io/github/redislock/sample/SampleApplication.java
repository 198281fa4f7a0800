package io.github.redislock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The sample service. For now it only proves the starter resolves and an application
 * starts with it; the stock-reservation demo is tracked in the project's
 * sample-application issue.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
