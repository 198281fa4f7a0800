package io.github.redislock.autoconfigure.web;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * In a Spring MVC or WebFlux application, answers {@code LockNotAcquiredException} with
 * 409 and {@code RedisLockException} with 503, as problem details; see
 * {@link LockProblemDetailsAdvice}. Backs off when the application defines a bean of that
 * type; {@code redis-lock.web.problem-details.enabled=false} turns it off.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass({ ProblemDetail.class, RestControllerAdvice.class })
@ConditionalOnBooleanProperty(name = "redis-lock.web.problem-details.enabled", matchIfMissing = true)
public final class LockProblemDetailsAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.SERVLET)
	@ConditionalOnClass(DispatcherServlet.class)
	static class SpringMvcConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockProblemDetailsAdvice lockProblemDetailsAdvice() {
			return new LockProblemDetailsAdvice();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.REACTIVE)
	@ConditionalOnClass(DispatcherHandler.class)
	static class WebFluxConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockProblemDetailsAdvice lockProblemDetailsAdvice() {
			return new LockProblemDetailsAdvice();
		}

	}

}
