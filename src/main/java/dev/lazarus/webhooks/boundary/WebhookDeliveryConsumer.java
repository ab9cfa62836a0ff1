package dev.lazarus.webhooks.boundary;

import dev.lazarus.pipeline.boundary.StepConsumer;
import dev.lazarus.webhooks.control.WebhookDelivery;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;

/** Consumes the webhook deliveries: a few at a time, a receiver is someone else's server. */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = WebhookDelivery.QUEUE),
        @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.webhooks.max-session:4}")})
public class WebhookDeliveryConsumer extends StepConsumer {
}
