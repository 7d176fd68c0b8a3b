# aqmlab ns-2 engine: web connections replayed from aqmlab's plan (web.dat), by Full-TCP
# agents with Application/TcpApp on both ends. web.dat holds one connection per line, in
# start order:  fid client server profile start request response delay_ms server_delay
# (k below is the connection's flow id, which its packets carry)
# At `start` the client's TcpApp sends `request` bytes (the SYN leaves at once); when the
# server's TcpApp has them all it waits `server_delay` seconds (0: none; PackMime's server
# delay drawn by aqmlab), then sends `response` bytes, with a FIN once the last is sent;
# when the client's TcpApp has them all, the response is complete. The client closes in
# turn; when its close completes, the agent pair goes back to a pool for the same
# (client, server, profile). Each use gets fresh ports (old ones lead to the null agent),
# so a late packet of an earlier connection never reaches a later one. A DelayBox on the
# client node gives each connection its planned extra delay: the rule's constant is set
# right before the SYN, which passes the client's DelayBox within the same call. Headers:
# DelayBox takes a packet for a new flow only if it is a 40-byte SYN (or SYN/ACK), so both
# agents start each connection with 40-byte headers and switch to AQ(web,hdr) (ns-3's
# IP + TCP + PPP bytes) once those have passed: the client right after its SYN, the
# server when the request is in. With ns-3's headers, SACK agents also take ns-3's SACK
# option size: 2 bytes of kind and length padded to 4 (sack_option_size_ 4), 8 per block.
# web.txt records (also written by web_native.tcl):
#                   R k time  (response complete)
#                   S k ndatapack ndatabytes nrexmitpack nrexmit ncwndcuts1 necn acked
#                     (the server agent, when the pair is recycled or at the end)
#                   W k acked (at the warm-up, connections still open)

set AQ(web,port) 65536
set AQ(web,open) {}

proc aq_web_start {path warmup stop hdr} {
    global AQ
    set AQ(web,hdr) $hdr
    set AQ(web,fd) [open $path r]
    set AQ(web,warmup) $warmup
    set AQ(web,stop) $stop
    set AQ(web,ndone) 0
    aq_web_schedule
}

proc aq_web_schedule {} {
    global AQ ns
    if {[gets $AQ(web,fd) line] <= 0} {
        return
    }
    set AQ(web,next) $line
    $ns at [lindex $line 4] aq_web_open
}

# DelayBox rule for the (client, server) pair; its constant is set per connection.
proc aq_web_rule {c s} {
    global AQ N
    set rv [new RandomVariable/Constant]
    $rv set val_ 0
    $N($c) add-rule [$N($c) id] [$N($s) id] $rv
    set AQ(rv,$c,$s) $rv
}

proc aq_web_pair {c s prof} {
    global ns N AQ
    set ct [aq_fulltcp_$prof]
    set st [aq_fulltcp_$prof]
    $ns attach-agent $N($c) $ct
    $ns attach-agent $N($s) $st
    if {[$ct info class] == "Agent/TCP/FullTcp/Sack"} {
        # ns-3's SACK option: kind and length padded to 4 bytes (ns-2: 2), 8 per block
        $ct set sack_option_size_ 4
        $st set sack_option_size_ 4
    }
    set ca [new Application/TcpApp $ct]
    set sa [new Application/TcpApp $st]
    $ca connect $sa
    $ct proc done {} "aq_web_closed $ct"
    $st proc done {} {}
    return [list $ct $st $ca $sa]
}

proc aq_web_port {agent node} {
    global AQ N ns
    set dmux [$N($node) demux]
    $dmux install [$agent set agent_port_] [$ns set nullAgent_]
    set p [incr AQ(web,port)]
    $dmux install $p $agent
    $agent set agent_port_ $p
}

proc aq_web_open {} {
    global AQ ns
    lassign $AQ(web,next) k c s prof start req resp dms sdelay
    set key $c,$s,$prof
    if {[info exists AQ(pool,$key)] && [llength $AQ(pool,$key)]} {
        set pair [lindex $AQ(pool,$key) 0]
        set AQ(pool,$key) [lrange $AQ(pool,$key) 1 end]
    } else {
        set pair [aq_web_pair $c $s $prof]
    }
    lassign $pair ct st ca sa
    aq_web_port $ct $c
    aq_web_port $st $s
    $ns connect $ct $st
    $ct set tcpip_base_hdr_size_ 40
    $st set tcpip_base_hdr_size_ 40
    $st reset
    $st listen
    $ct set fid_ $k
    $st set fid_ $k
    set AQ(conn,$k) [list $ct $st $ca $sa $key $resp $start $sdelay]
    set AQ(agent,$ct) $k
    lappend AQ(web,open) $k
    if {[info exists AQ(rv,$c,$s)]} {
        $AQ(rv,$c,$s) set val_ $dms
    }
    $ca send $req "aq_web_request $k"
    $ct set tcpip_base_hdr_size_ $AQ(web,hdr)
    aq_web_schedule
}

proc aq_web_request {k} {
    global AQ ns
    if {![info exists AQ(conn,$k)]} {
        return
    }
    [lindex $AQ(conn,$k) 1] set tcpip_base_hdr_size_ $AQ(web,hdr)
    set sdelay [lindex $AQ(conn,$k) 7]
    if {$sdelay > 0} {
        $ns after $sdelay [list aq_web_respond $k]
    } else {
        aq_web_respond $k
    }
}

proc aq_web_respond {k} {
    global AQ
    if {![info exists AQ(conn,$k)]} {
        return
    }
    lassign $AQ(conn,$k) ct st ca sa key resp
    $st set close_on_empty_ true
    $sa send $resp "aq_web_response $k"
}

proc aq_web_response {k} {
    global AQ ns
    puts $AQ(fd,web) "R $k [$ns now]"
    if {$AQ(web,stop) > 0 && [lindex $AQ(conn,$k) 6] >= $AQ(web,warmup)} {
        if {[incr AQ(web,ndone)] >= $AQ(web,stop)} {
            aq_finish
        }
    }
}

proc aq_web_stats {k st} {
    global AQ
    puts $AQ(fd,web) "S $k [$st set ndatapack_] [$st set ndatabytes_] [$st set nrexmitpack_]\
                      [$st set nrexmit_] [$st set ncwndcuts1_] [$st set necnresponses_]\
                      [$st set ack_]"
}

proc aq_web_closed {ct} {
    global AQ
    if {![info exists AQ(agent,$ct)]} {
        return
    }
    set k $AQ(agent,$ct)
    unset AQ(agent,$ct)
    if {![info exists AQ(conn,$k)]} {
        return
    }
    lassign $AQ(conn,$k) ct st ca sa key
    aq_web_stats $k $st
    unset AQ(conn,$k)
    lappend AQ(pool,$key) [list $ct $st $ca $sa]
}

# The server agent of open connection k (replayed or native), or "".
proc aq_web_server {k} {
    global AQ
    if {[info exists AQ(conn,$k)]} {
        return [lindex $AQ(conn,$k) 1]
    }
    if {[info exists AQ(pmsrv,$k)]} {
        return $AQ(pmsrv,$k)
    }
    return ""
}

# Warm-up: how far each open connection's response got; end: open connections' counters.
proc aq_web_snapshot {phase} {
    global AQ
    set still {}
    foreach k $AQ(web,open) {
        set st [aq_web_server $k]
        if {$st == ""} {
            continue
        }
        lappend still $k
        if {$phase == 0} {
            puts $AQ(fd,web) "W $k [$st set ack_]"
        } else {
            aq_web_stats $k $st
        }
    }
    set AQ(web,open) $still
}
