# aqmlab ns-2 engine: ns-2.35's own PackMimeHTTP generator for a traffic group (HTTP/1.0,
# one connection per request), its Full-TCP agents made by aqmlab's profile proc, flow
# ids fidbase + PackMime's connection number. Its logs: pm<g>.req (every request: time,
# sizes, server node.port), pm<g>.rsp (every completed response: time, sizes, response
# time in ms, server node.port); DelayBox delay files db<node>.dly. The server agent's
# counters go to web.txt as S records (see web_replay.tcl) when it closes, or when the
# client closes first (before PackMime resets both), or at the end.

proc aq_pm_group {g prof variant rate run start clients servers fidbase server_delay} {
    global ns N AQ
    set pm [new PackMimeHTTP]
    foreach c $clients {
        $pm set-client $N($c)
    }
    foreach s $servers {
        $pm set-server $N($s)
    }
    $pm set-rate $rate
    $pm set-run $run
    $pm set-TCP $variant
    $pm set-warmup 0
    $pm set-samples-outfile pm$g.req
    $pm set-outfile pm$g.rsp
    $pm proc alloc-tcp {tcptype} "return \[aq_fulltcp_$prof\]"
    $pm proc setup-tcp {tcp id} "aq_pm_setup $pm \$tcp \[expr {$fidbase + \$id}\]"
    $pm proc done {tcp} "aq_pm_done $pm \$tcp"
    if {!$server_delay} {
        set rv [new RandomVariable/Constant]
        $rv set val_ 0
        $pm set-server_delay $rv
    }
    $ns at $start "$pm start"
    set AQ(pm,$g) $pm
}

# PackMime's RTT model: a DelayBox on each side, PackMimeHTTPXmit delays (type 0 at the
# client, 1 at the server; each the half of an RTT share it models), as its manual says.
proc aq_pm_delays {rate run clients servers} {
    global N AQ
    foreach c $clients s $servers {
        foreach {node type} [list $c 0 $s 1] {
            set rng [new RNG]
            for {set i 0} {$i < $run} {incr i} {
                $rng next-substream
            }
            set rv [new RandomVariable/PackMimeHTTPXmit $rate $type]
            $rv use-rng $rng
            $N($node) add-rule [$N($c) id] [$N($s) id] $rv
            if {![info exists AQ(dly,$node)]} {
                $N($node) set-delay-file db$node.dly
                set AQ(dly,$node) 1
            }
        }
    }
}

# PackMime calls setup-tcp for the server agent, then the client agent, of connection fid.
proc aq_pm_setup {pm tcp fid} {
    global AQ
    $tcp set fid_ $fid
    $tcp proc done {} "$pm done $tcp"
    if {![info exists AQ(pmsrv,$fid)]} {
        set AQ(pmsrv,$fid) $tcp
        lappend AQ(web,open) $fid
    }
}

proc aq_pm_done {pm tcp} {
    global AQ
    set fid [$tcp set fid_]
    if {[info exists AQ(pmsrv,$fid)]} {
        aq_web_stats $fid $AQ(pmsrv,$fid)
        unset AQ(pmsrv,$fid)
    }
    $pm recycle $tcp
}
