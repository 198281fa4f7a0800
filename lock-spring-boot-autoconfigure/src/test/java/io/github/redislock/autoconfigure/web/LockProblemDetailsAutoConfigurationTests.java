package io.github.redislock.autoconfigure.web;

import java.time.Duration;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockException;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * A lock not acquired answers 409 and Redis unreachable 503, as problem details, in
 * Spring MVC and WebFlux applications; the application's own handlers win; a property
 * switches it off; without a web stack nothing changes.
 */
class LockProblemDetailsAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations
		.of(LockProblemDetailsAutoConfiguration.class);

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock())
		.withConfiguration(CONFIGURATIONS);

	@Test
	void springMvcAnswers409NamingTheLockAndTheWait() {
		this.servlet.run((context) -> {
			MockMvc mvc = MockMvcBuilders.standaloneSetup(new BusyController())
				.setControllerAdvice(context.getBean(LockProblemDetailsAdvice.class))
				.build();
			mvc.perform(get("/busy"))
				.andExpect(status().isConflict())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.status").value(409))
				.andExpect(jsonPath("$.detail")
					.value("Could not acquire lock 'order:42' within 2s: another holder kept it"))
				.andExpect(jsonPath("$.instance").value("/busy"))
				.andExpect(jsonPath("$.lock").value("order:42"))
				.andExpect(jsonPath("$.waitTime").value("PT2S"));
		});
	}

	@Test
	void springMvcAnswers503WithoutNamingServers() {
		this.servlet.run((context) -> {
			MockMvc mvc = MockMvcBuilders.standaloneSetup(new BusyController())
				.setControllerAdvice(context.getBean(LockProblemDetailsAdvice.class))
				.build();
			mvc.perform(get("/down"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(jsonPath("$.detail").value("The lock service is unavailable; try again shortly"));
		});
	}

	@Test
	void theApplicationsOwnHandlersWin() {
		this.servlet.run((context) -> {
			MockMvc mvc = MockMvcBuilders.standaloneSetup(new BusyController(), new HandlingController())
				.setControllerAdvice(new OwnAdvice(), context.getBean(LockProblemDetailsAdvice.class))
				.build();
			mvc.perform(get("/busy")).andExpect(status().isTooManyRequests());
			mvc.perform(get("/handled")).andExpect(status().isAccepted());
		});
	}

	@Test
	void webFluxAnswers409And503() {
		new ReactiveWebApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withConfiguration(CONFIGURATIONS)
			.run((context) -> {
				WebTestClient client = WebTestClient.bindToController(new BusyController())
					.controllerAdvice(context.getBean(LockProblemDetailsAdvice.class))
					.build();
				// plain results rather than the fluent status assertions, whose
				// signatures
				// differ between Spring Framework 6.2 and 7
				EntityExchangeResult<String> busy = client.get()
					.uri("/busy")
					.exchange()
					.expectBody(String.class)
					.returnResult();
				assertThat(busy.getStatus()).isEqualTo(HttpStatus.CONFLICT);
				assertThat(busy.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
				assertThat(busy.getResponseBody()).contains("\"lock\":\"order:42\"").contains("\"waitTime\":\"PT2S\"");
				EntityExchangeResult<String> down = client.get()
					.uri("/down")
					.exchange()
					.expectBody(String.class)
					.returnResult();
				assertThat(down.getStatus()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
				assertThat(down.getResponseHeaders().getFirst("Retry-After")).isEqualTo("1");
			});
	}

	@Test
	void aPropertySwitchesItOff() {
		this.servlet.withPropertyValues("redis-lock.web.problem-details.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProblemDetailsAdvice.class));
	}

	@Test
	void anAdviceOfTheApplicationReplacesIt() {
		this.servlet.withBean("ownProblemDetails", LockProblemDetailsAdvice.class, LockProblemDetailsAdvice::new)
			.run((context) -> assertThat(context).getBeanNames(LockProblemDetailsAdvice.class)
				.containsExactly("ownProblemDetails"));
	}

	@Test
	void outsideAWebApplicationThereIsNoAdvice() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProblemDetailsAdvice.class));
	}

	@Test
	void withoutSpringWebTheStarterWorks() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withConfiguration(CONFIGURATIONS)
			.withClassLoader(new FilteredClassLoader("org.springframework.web", "org.springframework.http"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.doesNotHaveBean(LockProblemDetailsAdvice.class));
	}

	@RestController
	static class BusyController {

		@GetMapping("/busy")
		String busy() {
			throw new LockNotAcquiredException("order:42", Duration.ofSeconds(2));
		}

		@GetMapping("/down")
		String down() {
			throw new RedisLockException("Could not acquire lock 'order:42': Unable to connect to redis.internal:6379",
					new java.net.ConnectException("Connection refused"));
		}

	}

	@RestController
	static class HandlingController {

		@GetMapping("/handled")
		String handled() {
			throw new LockNotAcquiredException("order:43", Duration.ofSeconds(2));
		}

		@ExceptionHandler
		ResponseEntity<String> busy(LockNotAcquiredException exception) {
			return ResponseEntity.accepted().body("queued");
		}

	}

	@RestControllerAdvice
	static class OwnAdvice {

		@ExceptionHandler
		ResponseEntity<ProblemDetail> busy(LockNotAcquiredException exception) {
			return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
				.body(ProblemDetail.forStatus(HttpStatus.TOO_MANY_REQUESTS));
		}

	}

}
