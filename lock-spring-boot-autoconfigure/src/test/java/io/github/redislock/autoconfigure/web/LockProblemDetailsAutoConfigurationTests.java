package io.github.redislock.autoconfigure.web;

import java.net.ConnectException;
import java.time.Duration;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
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
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

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
 * <p>
 * Compiled against Spring Framework 7 and run again on 6.2 (Spring Boot 3.5): WebFlux
 * results are read as plain values and JSON with JsonPath, since the fluent
 * {@code WebTestClient} assertions changed signatures between the two.
 */
class LockProblemDetailsAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations
		.of(LockProblemDetailsAutoConfiguration.class);

	// no test here talks to Redis; should one try, it finds nothing rather than a server
	private static final String[] NO_REDIS = { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1" };

	private static final String DOWN_MESSAGE = "Could not acquire lock 'order:42': Unable to connect to redis.internal:6379";

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock())
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues(NO_REDIS);

	private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock())
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues(NO_REDIS);

	@Test
	void springMvcAnswers409NamingTheLockAndTheWait() {
		this.servlet.run((context) -> {
			MockMvc mvc = MockMvcBuilders.standaloneSetup(new BusyController())
				.setControllerAdvice(context.getBean(LockProblemDetailsAdvice.class))
				.build();
			mvc.perform(get("/busy"))
				.andExpect(status().isConflict())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.title").value("Conflict"))
				.andExpect(jsonPath("$.status").value(409))
				.andExpect(jsonPath("$.detail")
					.value("Could not acquire lock 'order:42' within 2s: another holder kept it"))
				.andExpect(jsonPath("$.instance").value("/busy"))
				.andExpect(jsonPath("$.lock").value("order:42"))
				.andExpect(jsonPath("$.waitTime").value("PT2S"));
		});
	}

	@Test
	void springMvcAnswers503WithRetryAfterWithoutNamingServers() {
		this.servlet.run((context) -> {
			MockMvc mvc = MockMvcBuilders.standaloneSetup(new BusyController())
				.setControllerAdvice(context.getBean(LockProblemDetailsAdvice.class))
				.build();
			String body = mvc.perform(get("/down"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(jsonPath("$.title").value("Service Unavailable"))
				.andExpect(jsonPath("$.status").value(503))
				.andExpect(jsonPath("$.detail").value("The lock service is unavailable; try again shortly"))
				.andExpect(jsonPath("$.instance").value("/down"))
				.andReturn()
				.getResponse()
				.getContentAsString();
			assertNamesNoServerAndHasNoTrace(body);
		});
	}

	@Test
	void webFluxAnswers409NamingTheLockAndTheWait() {
		this.reactive.run((context) -> {
			EntityExchangeResult<String> busy = exchange(webTestClient(context.getBean(LockProblemDetailsAdvice.class)),
					"/busy");
			assertThat(busy.getStatus().value()).isEqualTo(409);
			assertThat(busy.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
			DocumentContext json = JsonPath.parse(busy.getResponseBody());
			assertThat(json.read("$.title", String.class)).isEqualTo("Conflict");
			assertThat(json.read("$.status", Integer.class)).isEqualTo(409);
			assertThat(json.read("$.detail", String.class))
				.isEqualTo("Could not acquire lock 'order:42' within 2s: another holder kept it");
			assertThat(json.read("$.instance", String.class)).isEqualTo("/busy");
			assertThat(json.read("$.lock", String.class)).isEqualTo("order:42");
			assertThat(json.read("$.waitTime", String.class)).isEqualTo("PT2S");
		});
	}

	@Test
	void webFluxAnswers503WithRetryAfterWithoutNamingServers() {
		this.reactive.run((context) -> {
			EntityExchangeResult<String> down = exchange(webTestClient(context.getBean(LockProblemDetailsAdvice.class)),
					"/down");
			assertThat(down.getStatus().value()).isEqualTo(503);
			assertThat(down.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
			assertThat(down.getResponseHeaders().getFirst("Retry-After")).isEqualTo("1");
			DocumentContext json = JsonPath.parse(down.getResponseBody());
			assertThat(json.read("$.title", String.class)).isEqualTo("Service Unavailable");
			assertThat(json.read("$.status", Integer.class)).isEqualTo(503);
			assertThat(json.read("$.detail", String.class))
				.isEqualTo("The lock service is unavailable; try again shortly");
			assertNamesNoServerAndHasNoTrace(down.getResponseBody());
		});
	}

	@Test
	void springMvcHandlersOfTheApplicationWin() {
		this.servlet.withUserConfiguration(SpringMvcApplication.class).run((context) -> {
			assertThat(context).hasSingleBean(LockProblemDetailsAdvice.class);
			// the advice beans in the order the context gives them, as in an application
			MockMvc mvc = MockMvcBuilders.webAppContextSetup(context.getSourceApplicationContext()).build();
			mvc.perform(get("/busy")).andExpect(status().isTooManyRequests());
			mvc.perform(get("/handled")).andExpect(status().isAccepted());
			// what the application does not handle is still answered
			mvc.perform(get("/down")).andExpect(status().isServiceUnavailable());
		});
	}

	@Test
	void webFluxHandlersOfTheApplicationWin() {
		this.reactive.withUserConfiguration(WebFluxApplication.class).run((context) -> {
			assertThat(context).hasSingleBean(LockProblemDetailsAdvice.class);
			WebTestClient client = WebTestClient.bindToApplicationContext(context.getSourceApplicationContext())
				.build();
			assertThat(exchange(client, "/busy").getStatus().value()).isEqualTo(429);
			assertThat(exchange(client, "/handled").getStatus().value()).isEqualTo(202);
			assertThat(exchange(client, "/down").getStatus().value()).isEqualTo(503);
		});
	}

	@Test
	void aBeanOfTheApplicationReplacesIt() {
		this.servlet.withBean("ownProblemDetails", LockProblemDetailsAdvice.class, LockProblemDetailsAdvice::new)
			.run((context) -> assertThat(context).getBeanNames(LockProblemDetailsAdvice.class)
				.containsExactly("ownProblemDetails"));
	}

	@Test
	void aPropertySwitchesItOff() {
		this.servlet.withPropertyValues("redis-lock.web.problem-details.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.doesNotHaveBean(LockProblemDetailsAdvice.class));
		this.reactive.withPropertyValues("redis-lock.web.problem-details.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.doesNotHaveBean(LockProblemDetailsAdvice.class));
	}

	@Test
	void outsideAWebApplicationThereIsNoAdvice() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withConfiguration(CONFIGURATIONS)
			.withPropertyValues(NO_REDIS)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.doesNotHaveBean(LockProblemDetailsAdvice.class));
	}

	@Test
	void aServletApplicationWithoutSpringMvcHasNoAdvice() {
		this.servlet.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.doesNotHaveBean(LockProblemDetailsAdvice.class));
	}

	@Test
	void aReactiveApplicationWithoutWebFluxHasNoAdvice() {
		this.reactive.withClassLoader(new FilteredClassLoader(DispatcherHandler.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.doesNotHaveBean(LockProblemDetailsAdvice.class));
	}

	@Test
	void withoutSpringWebTheStarterWorks() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withConfiguration(CONFIGURATIONS)
			.withPropertyValues(NO_REDIS)
			.withClassLoader(new FilteredClassLoader("org.springframework.web", "org.springframework.http"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.doesNotHaveBean(LockProblemDetailsAdvice.class));
	}

	private static WebTestClient webTestClient(LockProblemDetailsAdvice advice) {
		return WebTestClient.bindToController(new BusyController()).controllerAdvice(advice).build();
	}

	private static EntityExchangeResult<String> exchange(WebTestClient client, String path) {
		return client.get().uri(path).exchange().expectBody(String.class).returnResult();
	}

	private static void assertNamesNoServerAndHasNoTrace(String body) {
		assertThat(body).doesNotContain("redis.internal")
			.doesNotContain("6379")
			.doesNotContain("Connection refused")
			.doesNotContain("Exception")
			.doesNotContain("trace");
	}

	@RestController
	static class BusyController {

		@GetMapping("/busy")
		String busy() {
			throw new LockNotAcquiredException("order:42", Duration.ofSeconds(2));
		}

		@GetMapping("/down")
		String down() {
			throw new RedisLockException(DOWN_MESSAGE, new ConnectException("Connection refused"));
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

	// no @Order, like most applications' advice
	@RestControllerAdvice
	static class OwnAdvice {

		@ExceptionHandler
		ResponseEntity<ProblemDetail> busy(LockNotAcquiredException exception) {
			return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
				.body(ProblemDetail.forStatus(HttpStatus.TOO_MANY_REQUESTS));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationBeans {

		@Bean
		BusyController busyController() {
			return new BusyController();
		}

		@Bean
		HandlingController handlingController() {
			return new HandlingController();
		}

		@Bean
		OwnAdvice ownAdvice() {
			return new OwnAdvice();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class SpringMvcApplication extends ApplicationBeans {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebFlux
	static class WebFluxApplication extends ApplicationBeans {

	}

}
