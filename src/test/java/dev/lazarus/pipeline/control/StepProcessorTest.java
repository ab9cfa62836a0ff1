package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StepProcessorTest {

    @NonRetryable
    static class InvoiceRejected extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    static class SubclassOfInvoiceRejected extends InvoiceRejected {
        private static final long serialVersionUID = 1L;
    }

    @Test
    void failuresDeclaredNonRetryableSkipTheRetries() {
        assertTrue(StepProcessor.isNonRetryable(new PermanentStepFailure("bad input")));
        assertTrue(StepProcessor.isNonRetryable(new InvoiceRejected()));
        assertTrue(StepProcessor.isNonRetryable(new SubclassOfInvoiceRejected()), "the annotation is inherited");
        assertTrue(StepProcessor.isNonRetryable(new IllegalStateException("wrapped", new InvoiceRejected())),
                "a declared cause anywhere in the chain counts");
    }

    @Test
    void everythingElseIsRetried() {
        assertFalse(StepProcessor.isNonRetryable(new IllegalStateException("timeout")));
        assertFalse(StepProcessor.isNonRetryable(new RuntimeException(new java.io.IOException("reset"))));
    }
}
