package dev.lazarus.admin.boundary;

import jakarta.faces.application.ViewHandler;
import jakarta.faces.application.ViewHandlerWrapper;
import jakarta.faces.component.UIViewParameter;
import jakarta.faces.component.UIViewRoot;
import jakarta.faces.context.FacesContext;
import jakarta.faces.render.RenderKitFactory;
import jakarta.faces.render.ResponseStateManager;
import jakarta.faces.view.ViewMetadata;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How the pages' views are found and addressed (faces-config.xml), beyond what Faces does by itself:
 * <ul>
 * <li>A view state that names no view this session keeps, in whatever way (one another page drew, one made up, one
 * named {@code stateless}: no page here is), is an expired view: the page is drawn again with a message
 * ({@link ExpiredViews}), never an error page. Faces itself answered a few of those with a 500 and a stack trace in the
 * log, for anyone, without signing in.</li>
 * <li>The pages have one render kit, the standard one; a request naming another ({@code jakarta.faces.RenderKitId}, a
 * parameter no page sends) is not obeyed (Faces failed with a 500 on one it did not know).</li>
 * <li>A form posts to its page's full address, with the page's parameters (an id, a filter): a page drawn again after
 * its button was refused is at the address of what it shows, and a button pressed there later, once the session no
 * longer keeps the view, reloads that page, not the page without its filter.</li>
 * </ul>
 */
public class PageViews extends ViewHandlerWrapper {

    private static final Logger LOG = Logger.getLogger(PageViews.class.getName());
    /** Set while Faces builds a redirect or a link: it adds the page's parameters to the address itself. */
    private static final String WITHOUT_PARAMETERS = PageViews.class.getName() + ".withoutParameters";

    public PageViews(ViewHandler wrapped) {
        super(wrapped);
    }

    /** @return the view, or null (an expired view) if the request names no view state this session keeps for the page */
    @Override
    public UIViewRoot restoreView(FacesContext context, String viewId) {
        String state = context.getExternalContext().getRequestParameterMap().get(ResponseStateManager.VIEW_STATE_PARAM);
        if ("stateless".equals(state)) {
            return null; // Faces would build the page afresh and then fail on finding it is not stateless
        }
        try {
            return super.restoreView(context, viewId);
        } catch (RuntimeException notThisPagesState) {
            // the state of another page (a mismatch Faces finds only half-way through), or a made-up one; no stack trace
            // in the log for each such request, which anyone can send
            LOG.log(Level.FINE, notThisPagesState, () -> "The view state posted to " + viewId + " is none of its own");
            return null;
        }
    }

    @Override
    public String calculateRenderKitId(FacesContext context) {
        String standard = context.getApplication().getDefaultRenderKitId();
        return standard != null ? standard : RenderKitFactory.HTML_BASIC_RENDER_KIT;
    }

    /** The address a form of the page being drawn posts to: the page's own, with the page's parameters. */
    @Override
    public String getActionURL(FacesContext context, String viewId) {
        String address = super.getActionURL(context, viewId);
        UIViewRoot root = context.getViewRoot();
        if (root == null || !viewId.equals(root.getViewId()) || context.getAttributes().containsKey(WITHOUT_PARAMETERS)) {
            return address;
        }
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        for (UIViewParameter parameter : ViewMetadata.getViewParameters(root)) {
            String value = parameter.getStringValue(context);
            if (value != null && !value.isEmpty()) {
                parameters.put(parameter.getName(), List.of(value));
            }
        }
        return parameters.isEmpty() ? address : context.getExternalContext().encodeBookmarkableURL(address, parameters);
    }

    @Override
    public String getRedirectURL(FacesContext context, String viewId, Map<String, List<String>> parameters, boolean includeViewParams) {
        return withoutParameters(context, () -> super.getRedirectURL(context, viewId, parameters, includeViewParams));
    }

    @Override
    public String getBookmarkableURL(FacesContext context, String viewId, Map<String, List<String>> parameters, boolean includeViewParams) {
        return withoutParameters(context, () -> super.getBookmarkableURL(context, viewId, parameters, includeViewParams));
    }

    /** Faces builds redirects and links from {@link #getActionURL} and adds the parameters it was asked for: once. */
    private static String withoutParameters(FacesContext context, Supplier<String> address) {
        Map<Object, Object> attributes = context.getAttributes();
        boolean outermost = attributes.putIfAbsent(WITHOUT_PARAMETERS, Boolean.TRUE) == null;
        try {
            return address.get();
        } finally {
            if (outermost) {
                attributes.remove(WITHOUT_PARAMETERS);
            }
        }
    }
}
