package io.github.redislock.sample.web;

import io.github.redislock.LockNotAcquiredException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a request whose lock was not acquired in time with 409 Conflict and an RFC 9457
 * problem detail ({@code application/problem+json}) that names the lock and how long the
 * request waited, for example:
 *
 * <pre class="code">
 * {"title":"Conflict","status":409,
 *  "detail":"Could not acquire lock 'stock:sku-1' within 2s: another holder kept it",
 *  "instance":"/stock/sku-1/reservations","lock":"stock:sku-1","waitTime":"PT2S"}
 * </pre>
 *
 * The request changed nothing and can be sent again.
 */
@RestControllerAdvice
public class LockConflictAdvice {

	@ExceptionHandler
	ProblemDetail lockNotAcquired(LockNotAcquiredException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
		problem.setProperty("lock", ex.getLockName());
		problem.setProperty("waitTime", ex.getWaitTime().toString());
		return problem;
	}

}
