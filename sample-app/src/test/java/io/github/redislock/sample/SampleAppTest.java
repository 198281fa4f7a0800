package io.github.redislock.sample;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Starts the whole sample application with MockMvc for a test class, which points it at
 * its own Redis with {@link TestRedis}. The scheduled audit does not run by itself (and
 * keeps no lock after a round, so tests can run rounds back to back), a reservation waits
 * 200 ms for its lock, and the context is closed after the class: its Redis is gone then.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(properties = { "sample.audit.initial-delay=1h", "sample.audit.hold-at-least=0s",
		"spring.data.redis.timeout=2s", "sample.stock.lock-wait=200ms" })
@AutoConfigureMockMvc
@DirtiesContext
public @interface SampleAppTest {

}
