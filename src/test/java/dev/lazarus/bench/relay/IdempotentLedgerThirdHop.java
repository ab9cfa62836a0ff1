package dev.lazarus.bench.relay;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;

/** The idempotent ledger relay's hop from {@value IdempotentLedgerHop#THIRD} to {@value IdempotentLedgerHop#DONE} (see {@link IdempotentLedgerHop}). */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = IdempotentLedgerHop.THIRD),
        @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.consumer.max-session:8}")})
public class IdempotentLedgerThirdHop extends IdempotentLedgerHop {

    @Override
    protected String nextQueue() {
        return DONE;
    }
}
