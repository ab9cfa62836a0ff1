package dev.lazarus.pipeline.boundary;

import dev.lazarus.pipeline.control.StepProcessor;
import jakarta.annotation.Resource;
import jakarta.ejb.MessageDrivenContext;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;

/**
 * The base of every step queue's message-driven bean. A pipeline's consumer is only this class plus its
 * activation config naming the queue:
 *
 * <pre>{@code
 * @MessageDriven(activationConfig = {
 *     @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
 *     @ActivationConfigProperty(propertyName = "destination", propertyValue = MyPipeline.FIRST_QUEUE),
 *     @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
 *     @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.consumer.max-session:8}")})
 * public class FirstStepConsumer extends StepConsumer {
 * }
 * }</pre>
 *
 * It delegates and never swallows a failure: when the step must be retried it marks the transaction for
 * rollback, the broker redelivers with the step's backoff, and after the last attempt moves the message to
 * the step's dead-letter queue. Rolling back instead of throwing keeps the bean instance and the log clean.
 */
public abstract class StepConsumer implements MessageListener {

    @Inject
    StepProcessor processor;

    @Resource
    MessageDrivenContext context;

    @Override
    public void onMessage(Message message) {
        if (processor.process(message) == StepProcessor.Outcome.ROLL_BACK) {
            context.setRollbackOnly();
        }
    }
}
