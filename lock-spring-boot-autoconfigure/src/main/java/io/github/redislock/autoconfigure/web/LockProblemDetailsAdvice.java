package io.github.redislock.autoconfigure.web;

import java.time.Duration;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLockException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a request whose lock was not acquired with <b>409 Conflict</b>, and one that
 * failed because Redis could not be reached with <b>503 Service Unavailable</b>, each as
 * an RFC 9457 problem detail ({@code application/problem+json}), for Spring MVC and
 * WebFlux alike:
 *
 * <pre class="code">
 * {"title":"Conflict","status":409,
 *  "detail":"Could not acquire lock 'stock:sku-1' within 2s: another holder kept it",
 *  "instance":"/stock/sku-1/reservations","lock":"stock:sku-1","waitTime":"PT2S"}
 * </pre>
 *
 * Ordered last, so that an application's own {@code @ExceptionHandler} for these
 * exceptions (in a controller or a {@code @ControllerAdvice}) answers instead; so does an
 * application advice whose handler catches a supertype, such as {@code Exception}.
 * Replace it by declaring a bean of this type, or switch it off with
 * {@code redis-lock.web.problem-details.enabled=false}.
 *
 * @since 0.1.0
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockProblemDetailsAdvice {

	private static final Log logger = LogFactory.getLog(LockProblemDetailsAdvice.class);

	/** How long a client is asked to wait before retrying after a 503, in seconds. */
	private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

	/**
	 * 409: another holder kept the lock for the whole wait. The request changed nothing
	 * and can be sent again.
	 * @param exception what the call threw
	 * @return the problem, with the lock's name and the wait
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> lockNotAcquired(LockNotAcquiredException exception) {
		logger.debug(exception.getMessage());
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, exception.getMessage());
		problem.setProperty("lock", exception.getLockName());
		problem.setProperty("waitTime", exception.getWaitTime().toString());
		return ResponseEntity.status(HttpStatus.CONFLICT).body(problem);
	}

	/**
	 * 503: Redis could not be reached, or did not answer in time. The detail does not
	 * repeat the exception's message, which names servers; the log does.
	 * @param exception what the call threw
	 * @return the problem, with a {@code Retry-After} header
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> redisUnavailable(RedisLockException exception) {
		// the lock client tells once that Redis is lost or refusing (logger
		// io.github.redislock.connection); one line per answer would flood an outage's
		// log
		if (logger.isDebugEnabled()) {
			logger.debug("Answering 503: " + exception.getMessage());
		}
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"The lock service is unavailable; try again shortly");
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(RETRY_AFTER.toSeconds()))
			.body(problem);
	}

}
