/**
 * The lock engine. Not API: types here are public only so other packages of this library
 * can use them, and may change in any release.
 */
@NonNullApi
package io.github.redislock.internal;

import org.springframework.lang.NonNullApi;
