package io.github.redislock.autoconfigure.web;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * In a Spring MVC or WebFlux application, answers {@code LockNotAcquiredException} with
 * 409 and {@code RedisLockException} with 503, as problem details; see
 * {@link LockProblemDetailsAdvice}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnClass({ ProblemDetail.class, RestControllerAdvice.class })
@ConditionalOnBooleanProperty(name = "redis-lock.web.problem-details.enabled", matchIfMissing = true)
public class LockProblemDetailsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockProblemDetailsAdvice lockProblemDetailsAdvice() {
		return new LockProblemDetailsAdvice();
	}

}
