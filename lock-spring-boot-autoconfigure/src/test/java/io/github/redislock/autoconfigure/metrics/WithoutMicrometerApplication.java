package io.github.redislock.autoconfigure.metrics;

import io.github.redislock.RedisLockClient;
import io.github.redislock.TestTimeouts;
import io.github.redislock.annotation.DistributedLock;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring Boot application using the starter, run in a JVM whose class path has neither
 * Micrometer's core nor Actuator: it must start, lock and stop as usual. Prints what it
 * found for {@link WithoutMicrometerTests}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class WithoutMicrometerApplication {

	@Bean
	Inventory inventory() {
		return new Inventory();
	}

	public static void main(String[] args) {
		try {
			Class.forName("io.micrometer.core.instrument.MeterRegistry");
			System.out.println("UNEXPECTED micrometer-core is on the class path");
			System.exit(2);
		}
		catch (ClassNotFoundException expected) {
			// what this application is for
		}
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WithoutMicrometerApplication.class)
			.web(WebApplicationType.NONE)
			// a generous command timeout: a cold JVM on a busy machine took over the 2 s
			// default to connect, and this application is about the class path, not that
			// bound
			.run("--spring.data.redis.host=" + args[0], "--spring.data.redis.port=" + args[1],
					"--redis-lock.command-timeout=" + TestTimeouts.COMMAND_TIMEOUT.toSeconds() + "s")) {
			Inventory inventory = context.getBean(Inventory.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			System.out
				.println("LOCKED " + inventory.count("sku-1", () -> client.getLock("stock:sku-1").getHoldCount()));
			System.out.println("METRICS " + context.containsBean("redisLockMetricsCustomizer"));
		}
	}

	public static class Inventory {

		@DistributedLock(name = "stock", key = "#sku")
		public int count(String sku, java.util.function.IntSupplier inside) {
			return inside.getAsInt();
		}

	}

}
