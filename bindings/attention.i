/* bindings/attention.i — Scaled dot-product attention (torch 2.x's
 * torch.nn.functional.scaled_dot_product_attention). Over
 * include/tessera/attention.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR). */

%{
/* attn_mask and generator may be NULL (None); scale NaN means torch's None. */
static TsrTensor* bind_scaled_dot_product_attention(TsrTensor* query, TsrTensor* key, TsrTensor* value,
                                                    TsrTensor* attn_mask, double dropout_p, bool is_causal,
                                                    double scale, TsrGenerator* generator) {
  TSR_RETURN_TENSOR(tsr_scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale,
                                                     generator, &out));
}
%}
%newobject bind_scaled_dot_product_attention;
%rename(scaled_dot_product_attention) bind_scaled_dot_product_attention;
TsrTensor* bind_scaled_dot_product_attention(TsrTensor* query, TsrTensor* key, TsrTensor* value,
                                             TsrTensor* attn_mask, double dropout_p, bool is_causal,
                                             double scale, TsrGenerator* generator);
