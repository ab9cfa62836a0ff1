package dev.lazarus.pipeline.control;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an exception class whose failures retrying can never fix: a handler that throws one (or one with
 * such a cause) is dead-lettered on that attempt with reason {@code NON_RETRYABLE}. Use it on your own
 * exception types; {@link PermanentStepFailure} carries it already.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface NonRetryable {
}
