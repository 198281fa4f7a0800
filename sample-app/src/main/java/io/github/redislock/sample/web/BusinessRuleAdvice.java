package io.github.redislock.sample.web;

import io.github.redislock.sample.account.InsufficientFundsException;
import io.github.redislock.sample.account.UnknownAccountException;
import io.github.redislock.sample.stock.InsufficientStockException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers requests the shop's rules refuse with RFC 9457 problem details: 422 for too
 * little stock or money, 404 for an unknown account, 400 for invalid input.
 */
@RestControllerAdvice
public class BusinessRuleAdvice {

	@ExceptionHandler({ InsufficientStockException.class, InsufficientFundsException.class })
	ProblemDetail refused(RuntimeException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.UNPROCESSABLE_CONTENT, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail unknownAccount(UnknownAccountException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	// The services check their arguments with Assert, and the lock advice rejects a blank
	// key part before locking; both messages are written for the caller.
	@ExceptionHandler
	ProblemDetail invalid(IllegalArgumentException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

}
