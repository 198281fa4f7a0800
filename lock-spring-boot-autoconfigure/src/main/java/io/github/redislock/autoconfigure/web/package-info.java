/**
 * HTTP answers (409, 503) for lock failures in Spring MVC and WebFlux.
 */
@NullMarked
package io.github.redislock.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
