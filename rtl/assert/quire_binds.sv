// SPDX-License-Identifier: MIT
// Where the checkers of rtl/assert/ watch the design: every valid/ready stream of the
// engines' tops (in the engine testbenches the testbench drives the inputs; in the card,
// the card's movers do), and the card's host memory port. Read by the Verilator builds only,
// with --assert; a bind to a module that a build does not have is ignored there. Adding a
// stream to an engine means adding its line here (docs/rtl-engines.md, "Assertions").

bind quire_quant_exp quire_assert_stream #(.Width($bits({in_x_i, in_resid_i, in_keep_i, in_last_i})), .Name("quire_quant_exp in"))
  u_assert_in (.clk_i, .rst_ni, .valid_i(in_valid_i), .ready_i(in_ready_o), .data_i({in_x_i, in_resid_i, in_keep_i, in_last_i}), .done_i(1'b0));
bind quire_quant_exp quire_assert_stream #(.Width($bits(out_exp_o)), .Name("quire_quant_exp out"))
  u_assert_out (.clk_i, .rst_ni, .valid_i(out_valid_o), .ready_i(out_ready_i), .data_i(out_exp_o), .done_i(1'b0));

bind quire_quant_encode quire_assert_stream #(.Width($bits({in_x_i, in_resid_i, in_exp_i})), .Name("quire_quant_encode in"))
  u_assert_in (.clk_i, .rst_ni, .valid_i(in_valid_i), .ready_i(in_ready_o), .data_i({in_x_i, in_resid_i, in_exp_i}), .done_i(1'b0));
bind quire_quant_encode quire_assert_stream #(.Width($bits({out_q_o, out_resid_o})), .Name("quire_quant_encode out"))
  u_assert_out (.clk_i, .rst_ni, .valid_i(out_valid_o), .ready_i(out_ready_i), .data_i({out_q_o, out_resid_o}), .done_i(1'b0));

bind quire_quant_decode quire_assert_stream #(.Width($bits({in_vals_i, in_exp_i})), .Name("quire_quant_decode in"))
  u_assert_in (.clk_i, .rst_ni, .valid_i(in_valid_i), .ready_i(in_ready_o), .data_i({in_vals_i, in_exp_i}), .done_i(1'b0));
bind quire_quant_decode quire_assert_stream #(.Width($bits(out_y_o)), .Name("quire_quant_decode out"))
  u_assert_out (.clk_i, .rst_ni, .valid_i(out_valid_o), .ready_i(out_ready_i), .data_i(out_y_o), .done_i(1'b0));

bind quire_reduce_sum quire_assert_stream #(.Width($bits({in_beat_i, in_first_i, in_last_i, in_keep_i, in_acc_i})), .Name("quire_reduce_sum in"))
  u_assert_in (.clk_i, .rst_ni, .valid_i(in_valid_i), .ready_i(in_ready_o), .data_i({in_beat_i, in_first_i, in_last_i, in_keep_i, in_acc_i}), .done_i(1'b0));
bind quire_reduce_sum quire_assert_stream #(.Width($bits({out_acc_o, out_overflow_o})), .Name("quire_reduce_sum out"))
  u_assert_out (.clk_i, .rst_ni, .valid_i(out_valid_o), .ready_i(out_ready_i), .data_i({out_acc_o, out_overflow_o}), .done_i(1'b0));

bind quire_reduce_max_exp quire_assert_stream #(.Width($bits({in_exps_i, in_first_i, in_last_i, in_acc_i})), .Name("quire_reduce_max_exp in"))
  u_assert_in (.clk_i, .rst_ni, .valid_i(in_valid_i), .ready_i(in_ready_o), .data_i({in_exps_i, in_first_i, in_last_i, in_acc_i}), .done_i(1'b0));
bind quire_reduce_max_exp quire_assert_stream #(.Width($bits(out_exps_o)), .Name("quire_reduce_max_exp out"))
  u_assert_out (.clk_i, .rst_ni, .valid_i(out_valid_o), .ready_i(out_ready_i), .data_i(out_exps_o), .done_i(1'b0));

bind quire_reduce_fp_sum quire_assert_stream #(.Width($bits({in_beat_i, in_first_i, in_last_i, in_acc_i})), .Name("quire_reduce_fp_sum in"))
  u_assert_in (.clk_i, .rst_ni, .valid_i(in_valid_i), .ready_i(in_ready_o), .data_i({in_beat_i, in_first_i, in_last_i, in_acc_i}), .done_i(1'b0));
bind quire_reduce_fp_sum quire_assert_stream #(.Width($bits(out_acc_o)), .Name("quire_reduce_fp_sum out"))
  u_assert_out (.clk_i, .rst_ni, .valid_i(out_valid_o), .ready_i(out_ready_i), .data_i(out_acc_o), .done_i(1'b0));

bind quire_mlp quire_assert_stream #(.Width($bits(img_data_i)), .Name("quire_mlp img"))
  u_assert_img (.clk_i, .rst_ni, .valid_i(img_valid_i), .ready_i(img_ready_o), .data_i(img_data_i), .done_i(done_o || idle_o));
bind quire_mlp quire_assert_stream #(.Width($bits({feat_data_i, feat_feasible_i})), .Name("quire_mlp feat"))
  u_assert_feat (.clk_i, .rst_ni, .valid_i(feat_valid_i), .ready_i(feat_ready_o), .data_i({feat_data_i, feat_feasible_i}), .done_i(done_o || idle_o));
bind quire_mlp quire_assert_stream #(.Width($bits(score_o)), .Name("quire_mlp score"))
  u_assert_score (.clk_i, .rst_ni, .valid_i(score_valid_o), .ready_i(score_ready_i), .data_i(score_o), .done_i(1'b0));

bind quire_card_top quire_assert_req_rsp #(.Name("quire_card_top host memory"))
  u_assert_host (.clk_i, .rst_ni, .req_i(host_req_o), .ready_i(host_ready_i), .rvalid_i(host_rvalid_i));
bind quire_card_top quire_assert_req_rsp #(.Name("quire_card_top host memory, port 1"))
  u_assert_host1 (.clk_i, .rst_ni, .req_i(host1_req_o), .ready_i(host1_ready_i), .rvalid_i(host1_rvalid_i));
